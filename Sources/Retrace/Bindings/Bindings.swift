import IssueReporting

/// The named, bindable fields of a state: what ``BindableState/bindings`` declares.
///
/// Each field's value must be `Codable & Equatable & Sendable`, so that a binding action
/// can be recorded, compared in tests and sent across threads. A name or a key path declared
/// twice is a programming error: it is reported with IssueReporting's `reportIssue` (a
/// failing test; a message in a running app), and the first declaration stays.
public struct Bindings<Root>: Sendable {
  var fields: [BindingField<Root>] = []

  /// No fields yet; add them with ``field(_:_:)``.
  public init() {}

  /// These bindings and one more field.
  ///
  /// ```swift
  /// Bindings<NoteForm>().field("title", \.title)
  /// ```
  ///
  /// - Parameters:
  ///   - name: The name a recorded binding action carries, such as `title`.
  ///   - keyPath: Where the field lives in the state.
  /// - Returns: The bindings with the field added; unchanged, after reporting the mistake,
  ///   when `name` or `keyPath` is already declared.
  public func field<Value: Codable & Equatable & Sendable>(
    _ name: String, _ keyPath: WritableKeyPath<Root, Value> & Sendable
  ) -> Self {
    if fields.contains(where: { $0.name == name }) {
      reportIssue(
        "Bindings<\(Root.self)>: the field name \"\(name)\" is declared twice; "
          + "the first declaration stays")
      return self
    }
    if let first = fields.first(where: { $0.keyPath == keyPath }) {
      reportIssue(
        "Bindings<\(Root.self)>: the field \"\(name)\" has the key path of the field "
          + "\"\(first.name)\", declared first; the first declaration stays")
      return self
    }
    var copy = self
    copy.fields.append(BindingField(name: name, keyPath: keyPath))
    return copy
  }

  /// The declared field names, in declaration order.
  public var names: [String] { fields.map(\.name) }

  /// The field declared with `name`.
  func field(named name: String) -> BindingField<Root>? {
    fields.first { $0.name == name }
  }

  /// The name declared for `keyPath`.
  func name(of keyPath: PartialKeyPath<Root>) -> String? {
    fields.first { $0.keyPath == keyPath }?.name
  }
}

/// One declared field: its name, its key path, and how to decode a value for it.
struct BindingField<Root>: Sendable {
  let name: String
  let keyPath: PartialKeyPath<Root> & Sendable
  /// Decodes the `value` of a binding action for this field, and makes the action.
  let decode: @Sendable (KeyedDecodingContainer<BindingCodingKey>) throws -> BindingAction<Root>

  init<Value: Codable & Equatable & Sendable>(
    name: String, keyPath: WritableKeyPath<Root, Value> & Sendable
  ) {
    self.name = name
    self.keyPath = keyPath
    self.decode = { container in
      guard container.contains(.value) else {
        throw DecodingError.keyNotFound(
          BindingCodingKey.value,
          .init(
            codingPath: container.codingPath,
            debugDescription: "binding of field \"\(name)\" of \(Root.self) has no value"))
      }
      let value: Value
      do {
        value = try container.decode(Value.self, forKey: .value)
      } catch let error as DecodingError {
        throw DecodingError.typeMismatch(
          Value.self,
          .init(
            codingPath: container.codingPath + [BindingCodingKey.value],
            debugDescription:
              "field \"\(name)\" of \(Root.self) holds \(Value.self), and the value is not one"
              + " (\(Self.summary(of: error)))",
            underlyingError: error))
      }
      return BindingAction(field: name, keyPath: keyPath, value: value)
    }
  }

  /// The underlying decoding error's own description, for the message.
  private static func summary(of error: DecodingError) -> String {
    switch error {
    case .typeMismatch(_, let context), .valueNotFound(_, let context),
      .keyNotFound(_, let context), .dataCorrupted(let context):
      context.debugDescription
    @unknown default:
      "\(error)"
    }
  }
}
