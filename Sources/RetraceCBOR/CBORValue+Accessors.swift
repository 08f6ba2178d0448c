extension CBORValue {
  /// The value stored under a text key, if this is a map; setting it replaces the first
  /// entry with that key, or appends an entry, and setting `nil` removes the key.
  ///
  /// ```swift
  /// var payload: CBORValue = ["cents": 500]
  /// payload["amount"] = payload["cents"]   // ["cents": 500, "amount": 500]
  /// payload["cents"] = nil                 // ["amount": 500]
  /// ```
  ///
  /// Reading from an item that is not a map gives `nil`; writing to one is a programming
  /// error and traps.
  public subscript(key: String) -> CBORValue? {
    get {
      guard case .map(let pairs) = self else { return nil }
      return pairs.first { $0.key == .textString(key) }?.value
    }
    set {
      guard case .map(var pairs) = self else {
        preconditionFailure("CBORValue: subscript(key:) set on an item that is not a map: \(self)")
      }
      let index = pairs.firstIndex { $0.key == .textString(key) }
      switch (index, newValue) {
      case (let index?, let value?): pairs[index].value = value
      case (nil, let value?): pairs.append(Pair(.textString(key), value))
      case (let index?, nil): pairs.remove(at: index)
      case (nil, nil): break
      }
      self = .map(pairs)
    }
  }

  /// Removes the entries with a text key from a map and returns the first one's value.
  ///
  /// ```swift
  /// var payload: CBORValue = ["cents": 500, "note": "rent"]
  /// payload.removeValue(forKey: "note")   // "rent"; payload is ["cents": 500]
  /// ```
  ///
  /// - Parameter key: The key to remove.
  /// - Returns: The removed value, or `nil` if there was none or this is not a map.
  @discardableResult
  public mutating func removeValue(forKey key: String) -> CBORValue? {
    guard case .map(var pairs) = self else { return nil }
    let removed = pairs.first { $0.key == .textString(key) }?.value
    pairs.removeAll { $0.key == .textString(key) }
    self = .map(pairs)
    return removed
  }

  /// The element at `index`, if this is an array and the index is in range.
  ///
  /// ```swift
  /// let value: CBORValue = [10, 20]
  /// value[1]   // 20
  /// value[2]   // nil
  /// ```
  public subscript(index: Int) -> CBORValue? {
    guard case .array(let items) = self, items.indices.contains(index) else { return nil }
    return items[index]
  }

  /// The case name, if this is how Swift encodes an enum case: a map with exactly one
  /// entry whose key is text.
  ///
  /// ```swift
  /// let value: CBORValue = ["move": ["from": 1, "to": 2]]
  /// value.caseName      // "move"
  /// value.casePayload   // {"from": 1, "to": 2}
  /// ```
  public var caseName: String? {
    guard case .map(let pairs) = self, pairs.count == 1, case .textString(let name) = pairs[0].key
    else {
      return nil
    }
    return name
  }

  /// The associated values of an enum case (see ``caseName``): a map from the argument
  /// labels (`_0`, `_1`, … for unlabelled ones) to their values; empty for a case without
  /// payload.
  public var casePayload: CBORValue? {
    guard caseName != nil, case .map(let pairs) = self else { return nil }
    return pairs[0].value
  }

  /// The text, if this is a text string.
  public var stringValue: String? {
    guard case .textString(let text) = self else { return nil }
    return text
  }

  /// The integer, if this is an integer in the range of `Int`.
  ///
  /// ```swift
  /// CBORValue.negative(0).intValue   // -1
  /// ```
  public var intValue: Int? {
    switch self {
    case .unsigned(let value): return Int(exactly: value)
    case .negative(let value): return Int(exactly: value).map { ~$0 }
    default: return nil
    }
  }

  /// The number, if this is a float, or an integer that a `Double` holds exactly.
  public var doubleValue: Double? {
    switch self {
    case .float(let value): return value
    case .unsigned(let value): return Double(exactly: value)
    case .negative(let value):
      return value == .max ? -0x1p64 : Double(exactly: value + 1).map { -$0 }
    default: return nil
    }
  }

  /// The truth value, if this is `false` or `true`.
  public var boolValue: Bool? {
    guard case .boolean(let value) = self else { return nil }
    return value
  }

  /// The bytes, if this is a byte string.
  public var bytesValue: [UInt8]? {
    guard case .byteString(let bytes) = self else { return nil }
    return bytes
  }

  /// The elements, if this is an array.
  public var arrayValue: [CBORValue]? {
    guard case .array(let items) = self else { return nil }
    return items
  }

  /// The entries in order, if this is a map.
  public var mapValue: [Pair]? {
    guard case .map(let pairs) = self else { return nil }
    return pairs
  }

  /// Whether this is `null` or `undefined`, which Swift's `Optional` decodes as `nil`.
  public var isNull: Bool {
    switch self {
    case .null, .undefined: return true
    default: return false
    }
  }

  /// The item without its tags: the content of the innermost tag, or the item itself.
  ///
  /// ```swift
  /// CBORValue.tagged(1, 1363896240).untagged   // 1363896240
  /// ```
  public var untagged: CBORValue {
    var value = self
    while case .tagged(_, let content) = value { value = content }
    return value
  }
}
