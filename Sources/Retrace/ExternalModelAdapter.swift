/// Keeps a value of a store's state in step with a model outside the store that other code
/// also changes: a Core Data object, a document, an object a framework hands you.
///
/// Each change observed on the outside model becomes an action, made by `externalChange`
/// (conventionally a case named `externalChange`), which the store reduces and records like
/// any other, so a replay of the session reproduces it without the model. Each change the
/// store makes to the value (a form's edit, a reducer's computation) is written to the model,
/// and the model's callback for that write is not sent back to the store: nothing echoes.
///
/// ```swift
/// // A plain class that calls back after it changes (ChangeReporting).
/// let record = ParcelRecord()
/// let adapter = ExternalModelAdapter(
///   store: store, state: \.parcel, model: record, keyPath: \.parcel,
///   externalChange: { .externalChange(parcel: $0) })
///
/// record.postalAddress = "1 Infinite Loop"   // the store receives externalChange(parcel:)
/// store.send(.addItem(name: "Book"))         // the record's contents now end with "Book"
/// ```
///
/// On Apple platforms the same adapter observes an `NSObject`'s property by key-value
/// observing: pass the object and an `@objc dynamic` property's key path.
///
/// When it starts, the adapter brings the store in step with the model: if their values
/// differ, it sends `externalChange` with the model's value. If the model changes a value as
/// it is written (normalizing it), the adapter sends the model's version back as an
/// `externalChange`, since that is a change the store did not make. Values are compared with
/// `==`, so a change that leaves the value equal sends nothing.
///
/// The adapter lives on the main actor, with the store. It works while it is alive; release
/// it or call ``stop()`` to end it.
@MainActor
public final class ExternalModelAdapter<State: Sendable, Action: Sendable, Value: Equatable> {
  private let store: Store<State, Action>
  private let state: KeyPath<State, Value>
  private let externalChange: @MainActor (Value) -> Action
  private let read: @MainActor () -> Value
  private let write: @MainActor (Value) -> Void
  private var subscription: StoreSubscription?
  private var observation: AnyObject?
  /// Set while the adapter writes to the model, so that the model's callbacks for that write
  /// are not sent back to the store.
  private var isWriting = false

  /// Creates an adapter from the ways to read, write and observe the outside model: the
  /// general form, for a model that is neither ``ChangeReporting`` nor an `NSObject`.
  ///
  /// - Parameters:
  ///   - store: The store whose state holds the value.
  ///   - state: Where the value lives in the store's state.
  ///   - externalChange: The action that records a change observed on the model, with the
  ///     model's new value.
  ///   - read: Reads the value from the model.
  ///   - write: Writes a value the store changed to the model.
  ///   - observe: Starts observing the model: it calls its argument after each change, for
  ///     as long as the object it returns is alive.
  public init(
    store: Store<State, Action>,
    state: KeyPath<State, Value>,
    externalChange: @escaping @MainActor (Value) -> Action,
    read: @escaping @MainActor () -> Value,
    write: @escaping @MainActor (Value) -> Void,
    observe: (_ changed: @escaping @MainActor @Sendable () -> Void) -> AnyObject
  ) {
    self.store = store
    self.state = state
    self.externalChange = externalChange
    self.read = read
    self.write = write
    subscription = store.subscribe(
      to: { $0[keyPath: state] },
      { [weak self] _, new in self?.storeChanged(to: new) })
    observation = observe { [weak self] in self?.modelChanged() }
    modelChanged()
  }

  /// Creates an adapter for a plain class that reports its changes by callback.
  ///
  /// - Parameters:
  ///   - store: The store whose state holds the value.
  ///   - state: Where the value lives in the store's state.
  ///   - model: The outside model.
  ///   - keyPath: The model's property that holds the value.
  ///   - externalChange: The action that records a change observed on the model, with the
  ///     model's new value.
  public convenience init<Model: ChangeReporting>(
    store: Store<State, Action>,
    state: KeyPath<State, Value>,
    model: Model,
    keyPath: ReferenceWritableKeyPath<Model, Value>,
    externalChange: @escaping @MainActor (Value) -> Action
  ) {
    self.init(
      store: store, state: state, externalChange: externalChange,
      read: { model[keyPath: keyPath] },
      write: { model[keyPath: keyPath] = $0 },
      observe: { model.onChange($0) })
  }

  /// Ends the adapter: changes of the model are no longer recorded, and the store's are no
  /// longer written to the model. Releasing the adapter does the same.
  public func stop() {
    subscription?.cancel()
    subscription = nil
    observation = nil
  }

  /// The model changed: record its value, unless the adapter is writing it or the store
  /// holds it already.
  private func modelChanged() {
    guard !isWriting, subscription != nil else { return }
    let value = read()
    if value != store.withState({ $0[keyPath: state] }) {
      store.send(externalChange(value))
    }
  }

  /// The store's value changed: write it to the model, unless the model holds it already
  /// (the change came from the model).
  private func storeChanged(to value: Value) {
    guard read() != value else { return }
    isWriting = true
    write(value)
    isWriting = false
    // A model that adjusts what it is given made a change of its own.
    let written = read()
    if written != value { store.send(externalChange(written)) }
  }
}

/// A plain class that calls back after it changes: an outside model that an
/// ``ExternalModelAdapter`` can observe without key-value observing, on every platform.
///
/// Keep a ``ChangeCallbacks`` and call its ``ChangeCallbacks/notify()`` after each change:
///
/// ```swift
/// @MainActor final class ParcelRecord: ChangeReporting {
///   private let callbacks = ChangeCallbacks()
///   var postalAddress = "" { didSet { callbacks.notify() } }
///   func onChange(_ handler: @escaping @MainActor () -> Void) -> AnyObject {
///     callbacks.add(handler)
///   }
/// }
/// ```
@MainActor
public protocol ChangeReporting: AnyObject {
  /// Calls `handler` after each change of the object, for as long as the returned object is
  /// alive.
  ///
  /// - Parameter handler: Called on the main actor after each change.
  /// - Returns: A token; releasing it ends the calls.
  func onChange(_ handler: @escaping @MainActor () -> Void) -> AnyObject
}

/// The change callbacks of a plain model class, for its ``ChangeReporting`` conformance.
///
/// It holds its callbacks only as long as the tokens ``add(_:)`` returns are alive, so an
/// observer that goes away stops being called without unregistering.
@MainActor
public final class ChangeCallbacks {
  private final class Token {
    let handler: @MainActor () -> Void
    init(_ handler: @escaping @MainActor () -> Void) { self.handler = handler }
  }

  private struct WeakToken {
    weak var token: Token?
  }

  private var tokens: [WeakToken] = []

  /// Creates an empty list of callbacks.
  public init() {}

  /// Adds a callback that ``notify()`` calls for as long as the returned token is alive.
  ///
  /// - Parameter handler: Called after each change.
  /// - Returns: The token; releasing it removes the callback.
  public func add(_ handler: @escaping @MainActor () -> Void) -> AnyObject {
    let token = Token(handler)
    tokens.removeAll { $0.token == nil }
    tokens.append(WeakToken(token: token))
    return token
  }

  /// Calls every callback whose token is alive, in the order they were added.
  public func notify() {
    for handler in tokens.compactMap({ $0.token?.handler }) { handler() }
  }
}

#if canImport(ObjectiveC)
  import Foundation

  extension ExternalModelAdapter {
    /// Creates an adapter that observes a property of an `NSObject` by key-value observing.
    ///
    /// The property must be observable (`@objc dynamic`). A change made on another thread
    /// reaches the store on the main actor, after the change.
    ///
    /// - Parameters:
    ///   - store: The store whose state holds the value.
    ///   - state: Where the value lives in the store's state.
    ///   - model: The outside model.
    ///   - keyPath: The model's observable property that holds the value.
    ///   - externalChange: The action that records a change observed on the model, with the
    ///     model's new value.
    public convenience init<Model: NSObject>(
      store: Store<State, Action>,
      state: KeyPath<State, Value>,
      model: Model,
      keyPath: ReferenceWritableKeyPath<Model, Value>,
      externalChange: @escaping @MainActor (Value) -> Action
    ) {
      self.init(
        store: store, state: state, externalChange: externalChange,
        read: { model[keyPath: keyPath] },
        write: { model[keyPath: keyPath] = $0 },
        observe: { changed in
          model.observe(keyPath, options: []) { _, _ in
            if Thread.isMainThread {
              MainActor.assumeIsolated { changed() }
            } else {
              Task { @MainActor in changed() }
            }
          }
        })
    }
  }
#endif
