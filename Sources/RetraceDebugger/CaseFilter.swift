import Retrace

/// A case filter (`retrace log --type`, the debugger's `find`): a top-level case name or a
/// dotted case path (``Retrace/actionCasePath(_:matches:)``).
package enum CaseFilter {
  /// Whether `filter` starts with one of `domain`'s top-level cases.
  package static func isKnown(_ filter: String, in domain: some Domain) -> Bool {
    domain.actionCases.contains(String(filter.prefix { $0 != "." }))
  }

  /// What the error about an unknown filter adds when the filter, a name without a dot, is
  /// the last segment of nested case paths: those paths, as what to ask for instead.
  ///
  /// - Parameters:
  ///   - filter: The unknown filter.
  ///   - actions: Calls its argument with the case path of each action to look through, in
  ///     order; it is called only for a filter without a dot.
  /// - Returns: `; 'tick' is a nested case: use detail.tick`, or nothing.
  package static func nestedHint(
    for filter: String, paths actions: ((String) -> Void) throws -> Void
  ) rethrows -> String {
    guard !filter.contains(".") else { return "" }
    var nested: [String] = []
    try actions { path in
      if path.hasSuffix("." + filter), !nested.contains(path) { nested.append(path) }
    }
    return nested.isEmpty
      ? "" : "; '\(filter)' is a nested case: use " + nested.joined(separator: " or ")
  }
}
