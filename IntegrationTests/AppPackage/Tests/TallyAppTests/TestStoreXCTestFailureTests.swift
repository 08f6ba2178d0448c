import Retrace
import RetraceTesting
import TallyApp
import XCTest

/// A wrong expectation fails an XCTest test, in a target that depends on Retrace and
/// RetraceTesting only. The failure is caught here (the case records it instead of failing)
/// so that the test can check it was reported.
final class TestStoreXCTestFailureTests: XCTestCase {
  private var recorded: [String] = []
  private var capturing = false

  #if canImport(Darwin)
    override func record(_ issue: XCTIssue) {
      guard capturing else { return super.record(issue) }
      recorded.append(issue.compactDescription)
    }
  #else
    override func recordFailure(
      withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
      expected: Bool
    ) {
      guard capturing else {
        return super.recordFailure(
          withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
      }
      recorded.append(description)
    }
  #endif

  @MainActor
  func testAWrongExpectationFailsTheTest() async {
    let store = TestStore(initialState: Tally(), reducer: TallyReducer())
    capturing = true
    await store.send(.add(2)) { $0.count = 3 }
    capturing = false
    XCTAssertEqual(recorded.count, 1, "the wrong expectation was not reported to XCTest")
    XCTAssertTrue(recorded.first?.contains("count") == true, "\(recorded)")
  }
}
