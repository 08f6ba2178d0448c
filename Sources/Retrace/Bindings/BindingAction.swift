import IssueReporting

/// One edit of a form field: the field's declared name and its new value.
///
/// A feature's action carries it in a `binding` case (``BindableAction``), and
/// ``BindingReducer`` applies it. Because it names its field (``BindableState/bindings``), it
/// is recorded as one action and replays:
///
/// ```swift
/// store.send(.binding(.set(\.title, "Groceries")))
/// ```
///
/// encodes as
///
/// ```json
/// {"binding":{"_0":{"field":"title","value":"Groceries"}}}
/// ```
///
/// where `value` is the value's own encoding. Decoding a field name the state does not
/// declare, or a value that does not decode as the field's type, throws a `DecodingError`
/// that names the field.
public struct BindingAction<Root>: Sendable {
  /// The declared name of the field this action sets (``Bindings/field(_:_:)``).
  public let field: String
  /// The key path of the field this action sets.
  public let keyPath: PartialKeyPath<Root> & Sendable
  /// The new value.
  public let value: any Codable & Equatable & Sendable
  /// Writes the value into a state.
  @usableFromInline let write: @Sendable (inout Root) -> Void

  init<Value: Codable & Equatable & Sendable>(
    field: String, keyPath: WritableKeyPath<Root, Value> & Sendable, value: Value
  ) {
    self.field = field
    self.keyPath = keyPath
    self.value = value
    self.write = { $0[keyPath: keyPath] = value }
  }

  /// Sets the field's value in `state`.
  ///
  /// - Parameter state: The state to change.
  @inlinable
  public func apply(to state: inout Root) {
    write(&state)
  }
}

extension BindingAction where Root: BindableState {
  /// An action that sets the field at `keyPath` to `value`.
  ///
  /// ```swift
  /// await store.send(.binding(.set(\.title, "Groceries"))) { $0.title = "Groceries" }
  /// ```
  ///
  /// The field's name comes from `Root.bindings`. A key path that is not declared there is a
  /// programming error, reported as TCA reports one (`reportIssue`: a failing test, a
  /// runtime warning in an app); the action still sets the value, so the app keeps working,
  /// but it carries the key path's description (`\NoteForm.body`) as its field name, which
  /// no reader can decode: a trace that holds it stops replaying there, with an error that
  /// names it.
  ///
  /// - Parameters:
  ///   - keyPath: A field declared in `Root.bindings`.
  ///   - value: Its new value.
  ///   - fileID: Where an undeclared key path is reported; the default is right.
  ///   - filePath: The caller's file path, for the same report.
  ///   - line: The caller's line, for the same report.
  ///   - column: The caller's column, for the same report.
  /// - Returns: The action.
  public static func set<Value: Codable & Equatable & Sendable>(
    _ keyPath: WritableKeyPath<Root, Value> & Sendable, _ value: Value,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> Self {
    guard let name = Root.bindings.name(of: keyPath) else {
      reportIssue(
        "\(keyPath) is not a bindable field of \(Root.self): declare it in"
          + " \(Root.self).bindings, as in .field(\"name\", \(keyPath)), so that a trace can"
          + " name it",
        fileID: fileID, filePath: filePath, line: line, column: column)
      return Self(field: "\(keyPath)", keyPath: keyPath, value: value)
    }
    return Self(field: name, keyPath: keyPath, value: value)
  }
}

extension BindingAction {
  /// Whether `action` sets the field at `keyPath`, so that a reducer can match an edit by
  /// its key path, as in TCA:
  ///
  /// ```swift
  /// case .binding(\.title):
  ///   state.isSaveEnabled = !state.title.isEmpty
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: A field of the state.
  ///   - action: A binding action.
  /// - Returns: `true` when the action sets that field.
  public static func ~= <Value>(keyPath: WritableKeyPath<Root, Value>, action: Self) -> Bool {
    action.keyPath as AnyKeyPath == keyPath
  }
}

extension BindingAction: Equatable {
  /// Two binding actions are equal when they set the same field to equal values.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    func equals<Value: Equatable>(_ value: Value) -> Bool {
      (rhs.value as? Value) == value
    }
    return lhs.field == rhs.field && lhs.keyPath == rhs.keyPath && equals(lhs.value)
  }
}

extension BindingAction: CustomStringConvertible {
  /// `title = "Groceries"`: the field's name and its value.
  public var description: String {
    "\(field) = \(String(reflecting: value))"
  }
}

/// The keys of a binding action's encoding.
enum BindingCodingKey: String, CodingKey {
  case field, value
}

extension BindingAction: Encodable {
  /// Encodes `{"field": name, "value": value}`, the value with its own encoding.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: BindingCodingKey.self)
    try container.encode(field, forKey: .field)
    try container.encode(value, forKey: .value)
  }
}

extension BindingAction: Decodable where Root: BindableState {
  /// Decodes `{"field": name, "value": value}`.
  ///
  /// - Throws: `DecodingError.dataCorrupted` for a field name `Root.bindings` does not
  ///   declare; `DecodingError.typeMismatch` for a value that does not decode as the
  ///   field's type; `DecodingError.keyNotFound` when `field` or `value` is missing. Each
  ///   message names the field and the state type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: BindingCodingKey.self)
    let name = try container.decode(String.self, forKey: .field)
    guard let field = Root.bindings.field(named: name) else {
      let declared = Root.bindings.names.map { "\"\($0)\"" }.joined(separator: ", ")
      throw DecodingError.dataCorruptedError(
        forKey: .field, in: container,
        debugDescription:
          "\"\(name)\" is not a bindable field of \(Root.self) (it declares \(declared))")
    }
    self = try field.decode(container)
  }
}
