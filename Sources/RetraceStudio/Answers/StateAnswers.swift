import RetraceLog

/// `GET …/state`: the state after an action as the page shows it (its preview, or the whole
/// state with `full`), the action, what it changed, and the screens shown.
struct StateAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var seq: UInt64
  var last: UInt64
  /// The action applied; `null` at the session's start.
  @NullWhenAbsent var action: ActionItem?
  var state: EncodedJSON
  /// The paths the action changed (the preview's changes).
  var changed: EncodedJSON
  /// Whether a time-travel jump after the action set the state shown: ``changed`` is then
  /// what the action and the jump changed together.
  var jumped: Bool
  /// The screens shown, for a domain with a navigation flow; `null` otherwise.
  @NullWhenAbsent var screens: ScreenPathAnswer?
}

/// The screens a state shows: its tab, its stack, the one visible.
struct ScreenPathAnswer: Codable, Sendable, Equatable {
  @NullWhenAbsent var tab: String?
  var screens: [String]
  var visible: String
}

/// `GET …/state?path=…`: the part of the state at a path, with an array's window there.
struct StateWindowAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var seq: UInt64
  var path: EncodedJSON
  var value: EncodedJSON
}

/// `GET …/state?skip=…`: the state replayed without the skipped actions (those it could
/// leave out), and how it differs from the recorded one.
struct SkippedStateAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var seq: UInt64
  var last: UInt64
  var skipped: [UInt64]
  var state: EncodedJSON
  var changed: EncodedJSON
}

/// `GET …/search`: the paths in a state whose key or value holds the query.
struct SearchAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var seq: UInt64
  var query: String
  var count: Int
  /// Whether every path found is listed (fewer than the limit).
  var complete: Bool
  var paths: EncodedJSON
}

/// `GET …/diff`: what changed between two states (``StateChanges``): the changes at their
/// paths, and a text written from them, a line each (`null` when the states are equal).
struct DiffAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var from: UInt64
  var to: UInt64
  var changed: Bool
  @NullWhenAbsent var diff: String?
  /// Whether ``changes`` (and the text) hold every change: not when there were more than
  /// the limit, or a long array's items between its ends were not compared.
  var complete: Bool
  var changes: EncodedJSON
}
