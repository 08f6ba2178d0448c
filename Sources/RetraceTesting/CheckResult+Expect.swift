import CustomDump
import IssueReporting
import RetraceCheck

extension CheckResult {
  /// Records an issue, in Swift Testing or XCTest, unless the search passed (or, for
  /// `ModelChecker.reach`, reached its predicate): the counterexample's actions for a
  /// violation, with the state it fails in, and what was searched when it stopped early.
  ///
  /// It is in RetraceTesting, which links what records an issue in a test (swift-issue-
  /// reporting's test support): a test target that checks a domain depends on RetraceCheck
  /// and RetraceTesting.
  ///
  /// ```swift
  /// @Test func registrationHoldsItsInvariants() async throws {
  ///   try await ModelChecker(domain: registrationDomain).check(depth: 6).expectPassed()
  /// }
  /// ```
  public func expectPassed(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    guard outcome != .passed, outcome != .reached else { return }
    var message = "\(domain): \(description)"
    if let finding, outcome == .violated {
      message += "\n\nThe state after the last action:\n" + String(customDumping: finding.state)
    }
    reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}
