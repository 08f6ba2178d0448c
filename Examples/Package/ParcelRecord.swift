import Retrace

/// The parcel as an object outside the store: a plain class that other code changes (a
/// sync, another screen), and that reports its changes by callback.
///
/// It is the outside model of the package example: an ``Retrace/ExternalModelAdapter``
/// keeps ``parcel`` in step with ``PackageState/parcel``.
///
/// ```swift
/// let record = ParcelRecord()
/// let adapter = ExternalModelAdapter(
///   store: store, state: \.parcel, model: record, keyPath: \.parcel,
///   externalChange: { .externalChange(parcel: $0) })
/// ```
@MainActor
public final class ParcelRecord: ChangeReporting {
  private let callbacks = ChangeCallbacks()

  /// The recipient's first name.
  public var firstName = "" {
    didSet { changed(oldValue != firstName) }
  }
  /// The recipient's last name.
  public var lastName = "" {
    didSet { changed(oldValue != lastName) }
  }
  /// The recipient's postal address.
  public var postalAddress = "" {
    didSet { changed(oldValue != postalAddress) }
  }
  /// What is in the parcel.
  public var contents: [String] = [] {
    didSet { changed(oldValue != contents) }
  }

  /// Creates an empty record.
  public init() {}

  /// The record's fields as a ``Parcel``; setting it changes the fields that differ.
  public var parcel: Parcel {
    get {
      Parcel(
        recipient: Recipient(
          firstName: firstName, lastName: lastName, postalAddress: postalAddress),
        contents: contents)
    }
    set {
      firstName = newValue.recipient.firstName
      lastName = newValue.recipient.lastName
      postalAddress = newValue.recipient.postalAddress
      contents = newValue.contents
    }
  }

  /// Calls `handler` after each change of a field, for as long as the returned token lives.
  ///
  /// - Parameter handler: Called after each change.
  /// - Returns: The token; releasing it ends the calls.
  public func onChange(_ handler: @escaping @MainActor () -> Void) -> AnyObject {
    callbacks.add(handler)
  }

  private func changed(_ didChange: Bool) {
    if didChange { callbacks.notify() }
  }
}
