import CustomDump

/// Writes a diff in swift-custom-dump's format without walking what did not change.
///
/// swift-custom-dump's `diff` reflects every element of a collection that changed, and
/// compares them through mirrors and dynamic casts: a million-transaction banking state took
/// 6.5 s to diff across 1,000 actions, and the debugger's `goto` from the start 46 s. This
/// writer walks only the path to what changed:
///
/// - equal values (compared with `==` where they are `Equatable`) are one line, as in
///   swift-custom-dump;
/// - a large struct is written field by field, and a large optional as its value, each
///   through this writer;
/// - a large collection skips its common prefix and suffix as `… (N unchanged)` (compared
///   with `==` on the collections' elements, without mirrors where those are `Equatable`),
///   and matches the elements between as swift-custom-dump does (a Myers diff in which
///   elements with one `id` or equal are the same element) when there are at most
///   ``ElementMatching/smallWindow`` of them, by position when there are more; changed elements go through
///   this writer, removed and inserted ones are dumped;
/// - everything else (values of at most ``smallNodeCount`` nodes, enums, dictionaries, sets,
///   classes, types with a custom dump) goes to swift-custom-dump's own `diff`.
///
/// The output is swift-custom-dump's, character for character (`StateDiffTests` compares
/// them), except where a window is matched by position (an element inserted in the middle of
/// more than ``ElementMatching/smallWindow`` changed elements shows as the elements after it changing), and
/// where the Myers diff pairs a removal with an insertion at another position (both are
/// dumped, where swift-custom-dump diffs them against each other), and in the numbers of
/// objects (`#1 Box`), which start again in each part handed to swift-custom-dump.
///
/// With a budget (`maxNodes`), elements past it are summarized as `… (N more changes)` and
/// removed or inserted elements are dumped only as deep as the budget allows (`…` marks the
/// rest), as ``stateDump(_:maxNodes:)`` does.
struct StateDiffWriter {
  /// Values of at most this many nodes (fields and elements, counted level by level) are
  /// diffed by swift-custom-dump itself.
  static let smallNodeCount = 1_000

  /// The diff so far.
  private(set) var text = ""
  /// Whether anything differed: every difference writes text.
  var foundDifference: Bool { !text.isEmpty }
  /// Whether the budget left something out.
  private(set) var isComplete = true
  /// About how many more values may be written.
  private var budget: Int

  /// Whether there is no budget: everything is written.
  private let isUnlimited: Bool

  /// Creates a writer that writes about `maxNodes` values at most.
  init(maxNodes: Int = .max) {
    budget = maxNodes
    isUnlimited = maxNodes == .max
  }

  /// Writes the diff of `old` and `new`, labelled `label` (`nil` at the root), at `indent`,
  /// followed by `separator` (`","` unless it is the last of its siblings).
  mutating func write(
    _ old: Any, _ new: Any, label: String? = nil, indent: Int = 0, separator: String = ""
  ) {
    if areEqual(old, new) {
      // At the root, equal states have no diff at all.
      if let label { writeUnchanged(new, label: label, indent: indent, separator: separator) }
      return
    }
    let oldMirror = Mirror(customDumpReflecting: old)
    let newMirror = Mirror(customDumpReflecting: new)
    let isPlain =
      type(of: old) == type(of: new) && oldMirror.displayStyle == newMirror.displayStyle
      && !(old is any CustomDumpStringConvertible) && !(old is any CustomDumpRepresentable)
    if isPlain, !isSmall(old) || !isSmall(new) {
      switch oldMirror.displayStyle {
      case .struct?:
        if writeStruct(
          old, oldMirror, newMirror, label: label, indent: indent, separator: separator)
        {
          return
        }
      case .collection?:
        writeCollection(
          old, new, oldMirror, newMirror, label: label, indent: indent, separator: separator)
        return
      case .optional?:
        // Two values: their diff, under the optional's label (one `nil`: both dumped, below).
        if let oldValue = oldMirror.children.first?.value,
          let newValue = newMirror.children.first?.value
        {
          write(oldValue, newValue, label: label, indent: indent, separator: separator)
          return
        }
      default:
        break
      }
    }
    writeWithCustomDump(old, new, label: label, indent: indent, separator: separator)
  }

  // MARK: - Structs and collections

  /// Writes `TypeName(`, each field, `)`; `false` when the struct is not one this writer
  /// can frame (its fields differ in labels, or its dump has another shape).
  private mutating func writeStruct(
    _ old: Any, _ oldMirror: Mirror, _ newMirror: Mirror, label: String?, indent: Int,
    separator: String
  ) -> Bool {
    // swift-custom-dump leaves out the properties that observation macros add.
    let isIncluded: (Mirror.Child) -> Bool =
      old is any CustomDumpReflectable
      ? { _ in true } : { $0.label.map { !$0.hasPrefix("_$") } ?? true }
    let oldFields = oldMirror.children.filter(isIncluded)
    let newFields = newMirror.children.filter(isIncluded)
    var shortDump = ""
    customDump(old, to: &shortDump, maxDepth: 0)
    guard oldFields.map(\.label) == newFields.map(\.label),
      oldFields.allSatisfy({ $0.label != nil }),
      shortDump.hasSuffix("(…)"), !oldMirror.isSingleValueContainer,
      !newMirror.isSingleValueContainer
    else { return false }
    let typeName = shortDump.dropLast(3)
    line("  ", indent, "\(label.map { "\($0): " } ?? "")\(typeName)(")
    for (offset, (oldField, newField)) in zip(oldFields, newFields).enumerated() {
      write(
        oldField.value, newField.value, label: oldField.label, indent: indent + 2,
        separator: offset == oldFields.count - 1 ? "" : ",")
    }
    line("  ", indent, ")" + separator)
    return true
  }

  /// Writes `[`, the common prefix and suffix as `… (N unchanged)`, the elements between, `]`.
  ///
  /// The elements between are matched as swift-custom-dump matches them (its Myers diff,
  /// with elements of one `id` or equal taken as the same element) when there are at most
  /// ``ElementMatching/smallWindow`` of them, and by position otherwise.
  private mutating func writeCollection(
    _ old: Any, _ new: Any, _ oldMirror: Mirror, _ newMirror: Mirror, label: String?, indent: Int,
    separator: String
  ) {
    let oldElements = oldMirror.children
    let newElements = newMirror.children
    let oldCount = oldElements.count
    let newCount = newElements.count
    let (prefix, equalSuffix) = commonEnds(old, new, oldCount: oldCount, newCount: newCount)
    // The elements after the prefix that the matching may compare: no more than a window it
    // matches with a Myers diff.
    let oldHead = Array(oldElements.dropFirst(prefix).prefix(ElementMatching.smallWindow))
    let newHead = Array(newElements.dropFirst(prefix).prefix(ElementMatching.smallWindow))
    let matches = ElementMatching(
      oldCount: oldCount, newCount: newCount, prefix: prefix, equalSuffix: equalSuffix
    ) {
      isIdentityEqual(oldHead[$0].value, newHead[$1].value)
        || areEqual(oldHead[$0].value, newHead[$1].value)
    }
    let suffix = matches.suffix
    let oldWindow = oldElements.dropFirst(prefix).dropLast(suffix).lazy.map(\.value)
    let newWindow = newElements.dropFirst(prefix).dropLast(suffix).lazy.map(\.value)
    line("  ", indent, "\(label.map { "\($0): " } ?? "")[")
    let inner = indent + 2
    var unchanged = UnchangedRun(newCount: newCount, indent: inner)
    if prefix > 0 {
      unchanged.extend(
        by: prefix, last: (prefix - 1, newElements.dropFirst(prefix - 1).first!.value))
      unchanged.flush(&self)
    }
    var oldIndex = oldWindow.startIndex
    var newIndex = newWindow.startIndex
    var oldOffset = 0
    var newOffset = 0
    let oldEnd = oldCount - prefix - suffix
    let newEnd = newCount - prefix - suffix
    while oldOffset < oldEnd || newOffset < newEnd {
      if budget <= 0 {
        unchanged.flush(&self)
        let left = max(oldEnd - oldOffset, newEnd - newOffset)
        line(
          "  ", inner,
          "… (\(left) more \(left == 1 ? "change" : "changes"))" + (suffix > 0 ? "," : ""))
        isComplete = false
        break
      }
      let isRemoval = oldOffset < oldEnd && matches.isRemoval(oldOffset)
      let isInsertion = newOffset < newEnd && matches.isInsertion(newOffset)
      let oldPosition = prefix + oldOffset
      let newPosition = prefix + newOffset
      let step: Step
      if !isRemoval, !isInsertion, areEqual(oldWindow[oldIndex], newWindow[newIndex]) {
        unchanged.extend(by: 1, last: (newPosition, newWindow[newIndex]))
        step = .both
      } else {
        unchanged.flush(&self)
        step = writeChange(
          old: (isRemoval ? oldWindow[oldIndex] : nil, oldPosition, oldCount),
          new: (isInsertion ? newWindow[newIndex] : nil, newPosition, newCount),
          pair: !isRemoval && !isInsertion ? (oldWindow[oldIndex], newWindow[newIndex]) : nil,
          indent: inner)
      }
      if step != .new {
        oldWindow.formIndex(after: &oldIndex)
        oldOffset += 1
      }
      if step != .old {
        newWindow.formIndex(after: &newIndex)
        newOffset += 1
      }
    }
    // The common suffix continues the run of equal elements the window may end with: one
    // run, as swift-custom-dump counts it.
    if suffix > 0 {
      unchanged.extend(
        by: suffix, last: (newCount - 1, newElements.dropFirst(newCount - 1).first!.value))
    }
    unchanged.flush(&self)
    line("  ", indent, "]" + separator)
  }

  /// Which side of a collection's window a step of the walk moves on.
  private enum Step { case old, new, both }

  /// Writes one change in a collection's window: an element removed (`old.value` alone), one
  /// inserted (`new.value` alone), both at once, or one changed in place (`pair`). Returns
  /// the side or sides it used up. A side's element is passed only when the change uses it:
  /// the other side may have no element left to read.
  private mutating func writeChange(
    old: (value: Any?, position: Int, count: Int), new: (value: Any?, position: Int, count: Int),
    pair: (old: Any, new: Any)?, indent: Int
  ) -> Step {
    let oldSeparator = old.position == old.count - 1 ? "" : ","
    let newSeparator = new.position == new.count - 1 ? "" : ","
    // A pair shares one separator, as in swift-custom-dump.
    let pairSeparator = oldSeparator.isEmpty && newSeparator.isEmpty ? "" : ","
    switch (old.value, new.value) {
    case (let removed?, let inserted?) where old.position != new.position:
      // A removal and an insertion at other positions: both dumped (swift-custom-dump diffs
      // them against each other, under both labels).
      writeDump(removed, "- ", label: "[\(old.position)]", indent: indent, separator: pairSeparator)
      writeDump(
        inserted, "+ ", label: "[\(new.position)]", indent: indent, separator: pairSeparator)
    case (let removed?, let inserted?):
      // The same element, changed: what changed in it.
      write(removed, inserted, label: "[\(new.position)]", indent: indent, separator: pairSeparator)
    case (nil, nil):
      // The same element at one position, changed: what changed in it.
      write(
        pair!.old, pair!.new, label: "[\(new.position)]", indent: indent, separator: pairSeparator)
    case (let removed?, nil):
      writeDump(removed, "- ", label: "[\(old.position)]", indent: indent, separator: oldSeparator)
      return .old
    case (nil, let inserted?):
      writeDump(inserted, "+ ", label: "[\(new.position)]", indent: indent, separator: newSeparator)
      return .new
    }
    return .both
  }

  /// The run of equal elements seen last in a collection: how many, and the last one (its
  /// offset in the new collection, and its value).
  private struct UnchangedRun {
    let newCount: Int
    let indent: Int
    var count = 0
    var last: (offset: Int, value: Any)?

    init(newCount: Int, indent: Int) {
      self.newCount = newCount
      self.indent = indent
    }

    mutating func extend(by count: Int, last: (offset: Int, value: Any)) {
      self.count += count
      self.last = last
    }

    /// Writes the run: one element as itself, more as a count. Like swift-custom-dump, it
    /// leaves out the separator when the run ends the new collection, even if removed
    /// elements follow.
    mutating func flush(_ writer: inout StateDiffWriter) {
      guard let last else { return }
      let separator = last.offset == newCount - 1 ? "" : ","
      if count == 1 {
        writer.writeUnchanged(
          last.value, label: "[\(last.offset)]", indent: indent, separator: separator)
      } else {
        writer.line("  ", indent, "… (\(count) unchanged)" + separator)
      }
      (count, self.last) = (0, nil)
    }
  }

  // MARK: - Lines

  /// Writes an equal value on one line, as swift-custom-dump does: its fields not expanded.
  private mutating func writeUnchanged(_ value: Any, label: String, indent: Int, separator: String)
  {
    append(dump(value, label: label, indent: indent, maxDepth: 0) + separator, marker: "  ")
    budget -= 1
  }

  /// Writes a value that only one side has, as deep as the budget allows.
  private mutating func writeDump(
    _ value: Any, _ marker: String, label: String?, indent: Int, separator: String
  ) {
    // Without a budget, nothing to count (which would not end on a cycle of objects).
    let (depth, nodes) = isUnlimited ? (nil, 0) : dumpDepth(of: value, maxNodes: budget)
    if depth != nil { isComplete = false }
    append(
      dump(value, label: label, indent: indent, maxDepth: depth ?? .max) + separator, marker: marker
    )
    budget -= nodes
  }

  /// A value dumped as a field called `label`, as swift-custom-dump writes it inside a diff.
  ///
  /// `customDump` writes the value as a root, which names an enum's type
  /// (`AccountKind.checking`); inside a diff swift-custom-dump writes `.checking`. So the
  /// value is dumped as the last field of a frame (after a placeholder, so that the frame
  /// takes more than one line) whose own lines are then dropped.
  private func dump(_ value: Any, label: String?, indent: Int, maxDepth: Int) -> String {
    var text = ""
    guard let label else {
      // The root: as `customDump` writes it.
      customDump(value, to: &text, indent: indent, maxDepth: maxDepth)
      return text
    }
    customDump(
      DiffFrame(fields: [DiffFrame.placeholder, (label, value)]), to: &text,
      maxDepth: maxDepth == .max ? .max : maxDepth + 1)
    return DiffFrame.unframe(text, dropFirst: 2, dropLast: 1, indent: indent, keepsMarker: false)
  }

  /// Writes the diff of two small (or unusual) values with swift-custom-dump's `diff`.
  ///
  /// Below the root, the pair is diffed as the one field of a frame, so that swift-custom-dump
  /// writes the label and the separator itself; the frame's own lines are then dropped and
  /// the rest moved to `indent`.
  ///
  /// A pair larger than the budget left (a large dictionary or enum payload, which
  /// swift-custom-dump would write whole) is written as swift-custom-dump writes two values
  /// it does not descend into, the old one and the new one, each as deep as the budget
  /// allows.
  private mutating func writeWithCustomDump(
    _ old: Any, _ new: Any, label: String?, indent: Int, separator: String
  ) {
    if !isUnlimited {
      let limit = max(budget, 2 * Self.smallNodeCount)
      let nodes = nodeCount(of: old, limit: limit) + nodeCount(of: new, limit: limit)
      if nodes > limit {
        writeDump(old, "- ", label: label, indent: indent, separator: separator)
        writeDump(new, "+ ", label: label, indent: indent, separator: separator)
        return
      }
      budget -= nodes
    }
    guard let label else {
      append(diff(old, new) ?? "", marker: nil)
      return
    }
    // The frame always has two fields, so that it takes more than one line: an equal
    // placeholder after the value makes swift-custom-dump write the separator, one before
    // it leaves it out.
    let fields: (Any) -> [(label: String, value: Any)] = { value in
      separator.isEmpty
        ? [DiffFrame.placeholder, (label, value)] : [(label, value), DiffFrame.placeholder]
    }
    guard let framed = diff(DiffFrame(fields: fields(old)), DiffFrame(fields: fields(new))) else {
      return
    }
    text +=
      DiffFrame.unframe(
        framed, dropFirst: separator.isEmpty ? 2 : 1, dropLast: separator.isEmpty ? 1 : 2,
        indent: indent,
        keepsMarker: true) + "\n"
  }

  /// Appends one line: a marker (`"  "`, `"- "` or `"+ "`), the indent, the text.
  private mutating func line(_ marker: String, _ indent: Int, _ content: String) {
    text += marker + String(repeating: " ", count: indent) + content + "\n"
  }

  /// Appends a block of lines, each prefixed with `marker` (none when `nil`).
  private mutating func append(_ block: String, marker: String?) {
    guard let marker else {
      text += block + "\n"
      return
    }
    for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
      text += marker + line + "\n"
    }
  }
}

/// The struct that ``StateDiffWriter`` has swift-custom-dump dump or diff a labelled value
/// in, to get the value written as a field.
private struct DiffFrame: CustomDumpReflectable {
  /// An equal field beside the value.
  static var placeholder: (label: String, value: Any) { ("_", 0) }

  var fields: [(label: String, value: Any)]

  var customDumpMirror: Mirror {
    Mirror(
      self, children: fields.map { (label: Optional($0.label), value: $0.value) },
      displayStyle: .struct)
  }

  /// The lines of a frame's dump or diff without the frame's own (`dropFirst` at the start,
  /// `dropLast` at the end), moved from the frame's field indent (2) to `indent`, after the
  /// two-character `- `, `+ ` or `  ` marker of each line when `keepsMarker`.
  static func unframe(_ text: String, dropFirst: Int, dropLast: Int, indent: Int, keepsMarker: Bool)
    -> String
  {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(dropFirst)
      .dropLast(dropLast)
    let shift = String(repeating: " ", count: indent)
    let marker = keepsMarker ? 2 : 0
    return lines.map { $0.prefix(marker) + shift + $0.dropFirst(marker + 2) }.joined(
      separator: "\n")
  }
}
