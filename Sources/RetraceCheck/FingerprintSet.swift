/// The set of 64-bit state fingerprints a breadth-first search has seen, as TLC keeps it:
/// an open-addressing table of bare fingerprints, 8 bytes a slot, linear probing, grown to
/// twice its size at three quarters full.
///
/// Written by hand because no listed library has a set of integers this small: a
/// `Set<UInt64>` costs about 20 bytes an element at the same load. It is a value (its
/// storage an array), so searching tasks can read one copy while none writes.
struct FingerprintSet: Sendable {
  /// The slots; 0 is an empty slot, and a fingerprint of 0 is stored as 1.
  private var slots: [UInt64]
  /// The number of fingerprints held.
  private(set) var count = 0

  /// Creates an empty set with room for `capacity` fingerprints before it grows.
  init(capacity: Int) {
    var size = 16
    while size * 3 / 4 < capacity { size *= 2 }
    slots = Array(repeating: 0, count: size)
  }

  /// The bytes the table takes.
  var bytes: Int { slots.count * MemoryLayout<UInt64>.stride }

  /// Whether the set holds `fingerprint`.
  func contains(_ fingerprint: UInt64) -> Bool {
    let key = fingerprint == 0 ? 1 : fingerprint
    return slots.withUnsafeBufferPointer { slots in
      let mask = slots.count - 1
      var index = Int(truncatingIfNeeded: key) & mask
      while true {
        let slot = slots[index]
        if slot == key { return true }
        if slot == 0 { return false }
        index = (index + 1) & mask
      }
    }
  }

  /// Adds `fingerprint`; `true` when it was not there.
  mutating func insert(_ fingerprint: UInt64) -> Bool {
    if (count + 1) * 4 > slots.count * 3 { grow() }
    let key = fingerprint == 0 ? 1 : fingerprint
    let inserted = slots.withUnsafeMutableBufferPointer { slots in
      let mask = slots.count - 1
      var index = Int(truncatingIfNeeded: key) & mask
      while true {
        let slot = slots[index]
        if slot == key { return false }
        if slot == 0 {
          slots[index] = key
          return true
        }
        index = (index + 1) & mask
      }
    }
    if inserted { count += 1 }
    return inserted
  }

  /// Doubles the table and places every fingerprint again.
  private mutating func grow() {
    let old = slots
    slots = Array(repeating: 0, count: old.count * 2)
    slots.withUnsafeMutableBufferPointer { slots in
      let mask = slots.count - 1
      for key in old where key != 0 {
        var index = Int(truncatingIfNeeded: key) & mask
        while slots[index] != 0 { index = (index + 1) & mask }
        slots[index] = key
      }
    }
  }
}
