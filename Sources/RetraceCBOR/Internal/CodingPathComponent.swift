/// One step of a coding path, kept in this form until someone asks for `[CodingKey]`
/// (usually only to build an error), so that the hot path never builds arrays of keys.
///
/// A key is kept as its `stringValue`: copying a `String` is a retain at most (none for
/// the literals of synthesized keys), whereas copying an `any CodingKey` goes through
/// value witnesses, and boxing one (a dictionary's key is 25 bytes) allocates.
enum CodingPathComponent {
  case key(String)
  case index(Int)
  case superKey

  var codingKey: any CodingKey {
    switch self {
    case .key(let name): return CBORCodingKey(stringValue: name)
    case .index(let index): return CBORCodingKey(index: index)
    case .superKey: return CBORCodingKey(stringValue: "super")
    }
  }
}

/// A coding key for array indices and `super`, named like Foundation's JSON coders name them.
struct CBORCodingKey: CodingKey {
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
