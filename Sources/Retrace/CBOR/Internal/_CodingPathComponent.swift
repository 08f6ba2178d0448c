/// One step of a coding path, kept in this form until someone asks for `[CodingKey]`
/// (usually only to build an error), so that the hot path never builds arrays of keys.
enum _CodingPathComponent {
  case key(any CodingKey)
  case index(Int)
  case superKey

  var codingKey: any CodingKey {
    switch self {
    case .key(let key): return key
    case .index(let index): return _CBORKey(index: index)
    case .superKey: return _CBORKey(stringValue: "super")
    }
  }
}

/// A coding key for array indices and `super`, named like Foundation's JSON coders name them.
struct _CBORKey: CodingKey {
  var stringValue: String
  var intValue: Int?

  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
  }

  init(intValue: Int) {
    self.stringValue = "\(intValue)"
    self.intValue = intValue
  }

  init(index: Int) {
    self.stringValue = "Index \(index)"
    self.intValue = index
  }
}
