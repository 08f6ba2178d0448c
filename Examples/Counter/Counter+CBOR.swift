import Retrace

// Hand-written CBOR for the counter (see `CBOREncodable`): the same bytes as `Codable`'s.

extension CounterAction: CBOREncodable, CBORDecodable {
  /// Writes `{"increment": {}}` and the like.
  public func encode(to writer: inout CBORWriter) {
    switch self {
    case .increment: writer.writeCase("increment", fields: 0)
    case .decrement: writer.writeCase("decrement", fields: 0)
    case .reset: writer.writeCase("reset", fields: 0)
    }
  }

  /// Reads `{"increment": {}}` and the like.
  public init(from reader: inout CBORReader) throws(CBORError) {
    let (name, fields) = try reader.readCase("an action")
    switch name {
    case "increment": self = .increment
    case "decrement": self = .decrement
    case "reset": self = .reset
    default: throw reader.invalidValue("no counter action case '\(name)'")
    }
    for _ in 0..<fields {  // no payload, but a map (as Codable wants)
      try reader.skip()
      try reader.skip()
    }
  }
}

extension CounterState: CBOREncodable, CBORDecodable {
  /// Writes `{"count": n}`.
  public func encode(to writer: inout CBORWriter) {
    writer.writeMapHeader(count: 1)
    writer.writeKey("count")
    writer.write(count)
  }

  /// Reads `{"count": n}`.
  public init(from reader: inout CBORReader) throws(CBORError) {
    var count: Int?
    for _ in 0..<(try reader.readMapHeader()) {
      switch try reader.readKey() {
      case "count": count = try reader.read(Int.self)
      default: try reader.skip()
      }
    }
    guard let count else { throw reader.missingKey("count") }
    self.init(count: count)
  }
}
