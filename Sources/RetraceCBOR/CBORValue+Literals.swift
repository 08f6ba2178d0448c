/// Literals make items easy to write in upcasters and tests:
///
/// ```swift
/// let value: CBORValue = ["addTransaction": ["iban": "DE89…", "amount": 100, "tags": [], "note": nil]]
/// ```
extension CBORValue: ExpressibleByStringLiteral {
  /// A text string.
  public init(stringLiteral value: String) {
    self = .textString(value)
  }
}

extension CBORValue: ExpressibleByIntegerLiteral {
  /// An unsigned or negative integer.
  public init(integerLiteral value: Int64) {
    self = value >= 0 ? .unsigned(UInt64(value)) : .negative(~UInt64(bitPattern: value))
  }
}

extension CBORValue: ExpressibleByFloatLiteral {
  /// A float.
  public init(floatLiteral value: Double) {
    self = .float(value)
  }
}

extension CBORValue: ExpressibleByBooleanLiteral {
  /// `false` or `true`.
  public init(booleanLiteral value: Bool) {
    self = .boolean(value)
  }
}

extension CBORValue: ExpressibleByNilLiteral {
  /// `null`.
  public init(nilLiteral: ()) {
    self = .null
  }
}

extension CBORValue: ExpressibleByArrayLiteral {
  /// An array.
  public init(arrayLiteral elements: CBORValue...) {
    self = .array(elements)
  }
}

extension CBORValue: ExpressibleByDictionaryLiteral {
  /// A map with the entries in the literal's order.
  public init(dictionaryLiteral elements: (CBORValue, CBORValue)...) {
    self = .map(elements.map { Pair($0.0, $0.1) })
  }
}
