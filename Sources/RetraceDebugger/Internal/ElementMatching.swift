/// Which elements of two versions of a collection are the same element, as swift-custom-dump
/// matches them and as ``stateDiff(_:_:)`` writes them: the common prefix and suffix of equal
/// elements, then a Myers diff of the elements between in which two elements are the same
/// when they have one `id` (`Identifiable`) or are equal; past ``smallWindow`` elements
/// between, by position.
///
/// Retrace Studio's structural diff matches items with it too, so that the page marks as
/// moved, inserted and removed the very elements the text diff writes as `-` and `+`.
package struct ElementMatching: Sendable {
  /// Windows of at most this many elements (both sides together) are matched with a Myers
  /// diff, as swift-custom-dump does; larger ones by position: the cap on the work of
  /// matching by identity.
  package static let smallWindow = 1_000

  /// How many equal elements both start with.
  package let prefix: Int
  /// How many equal elements both end with, past the window.
  package let suffix: Int
  /// How many elements of each side lie between the prefix and the suffix.
  package let oldWindow: Int
  package let newWindow: Int
  /// The offsets in the old window of the elements removed, and in the new window of those
  /// inserted; `nil` when the window is matched by position.
  private let removals: Set<Int>?
  private let insertions: Set<Int>?

  /// Matches two collections of `oldCount` and `newCount` elements.
  ///
  /// - Parameters:
  ///   - oldCount: How many elements the old collection has.
  ///   - newCount: How many elements the new collection has.
  ///   - prefix: How many equal elements both start with.
  ///   - equalSuffix: How many equal elements both end with (overlapping the prefix or not).
  ///   - same: Whether the old element at an offset from `prefix` and the new one at another
  ///     are the same element (one `id`, or equal).
  package init(
    oldCount: Int, newCount: Int, prefix: Int, equalSuffix: Int, same: (Int, Int) -> Bool
  ) {
    self.prefix = prefix
    // swift-custom-dump's Myers diff matches, from the front, every element with the same
    // `id` as well as equal ones: the suffix must leave those to it, or it would match them
    // differently.
    let shorter = min(oldCount, newCount) - prefix
    var sameRun = 0
    while sameRun < min(shorter, Self.smallWindow), same(sameRun, sameRun) { sameRun += 1 }
    suffix = max(0, min(equalSuffix, shorter - sameRun))
    oldWindow = oldCount - prefix - suffix
    newWindow = newCount - prefix - suffix
    guard oldWindow + newWindow <= Self.smallWindow else {
      (removals, insertions) = (nil, nil)
      return
    }
    let difference = Array(0..<newWindow).difference(from: Array(0..<oldWindow)) {
      same($0, $1)
    }
    var removals = Set<Int>()
    var insertions = Set<Int>()
    for change in difference {
      switch change {
      case .remove(let offset, _, _): removals.insert(offset)
      case .insert(let offset, _, _): insertions.insert(offset)
      }
    }
    (self.removals, self.insertions) = (removals, insertions)
  }

  /// Whether the element at `offset` in the old window is removed.
  package func isRemoval(_ offset: Int) -> Bool {
    removals?.contains(offset) ?? (offset >= newWindow)
  }

  /// Whether the element at `offset` in the new window is inserted.
  package func isInsertion(_ offset: Int) -> Bool {
    insertions?.contains(offset) ?? (offset >= oldWindow)
  }
}
