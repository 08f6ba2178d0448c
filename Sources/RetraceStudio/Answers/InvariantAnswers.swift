import RetraceDebugger
import RetraceLog

/// `GET …/bisect`: the first action after which the invariant fails, where it heals, and
/// each stretch it fails over; `readWhole` and `integrity` say whether that is of the whole
/// session.
struct BisectAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var invariant: String
  @NullWhenAbsent var firstViolation: UInt64?
  @NullWhenAbsent var action: EncodedJSON?
  @NullWhenAbsent var healedAt: UInt64?
  var actions: Int
  var failsAtJump: Bool
  var healsAtJump: Bool
  var readWhole: Bool
  var integrity: IntegrityJSON
  var violations: [Violation]
  /// True when the session holds no actions: holding in the starting state alone is no
  /// pass, as `bisect --json` says.
  var nothingChecked: Bool

  struct Violation: Codable, Sendable, Equatable {
    var fails: UInt64
    @NullWhenAbsent var healedAt: UInt64?
  }
}

/// `GET …/shrink`: when the invariant fails, the shortest session found that still breaks
/// it (as JSON Lines and as a Swift test); when it holds, `readWhole` and `integrity`.
struct ShrinkAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var invariant: String
  var fails: Bool
  var actions: Int
  var readWhole: Bool?
  var integrity: IntegrityJSON?
  var originalCount: Int?
  var replays: Int?
  var jsonl: String?
  var swiftTest: String?
}
