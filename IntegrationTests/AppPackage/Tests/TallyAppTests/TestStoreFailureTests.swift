import Retrace
import RetraceTesting
import TallyApp
import Testing

/// A wrong expectation fails a Swift Testing test, in a target that depends on Retrace and
/// RetraceTesting only.
@MainActor @Suite struct TestStoreFailureTests {
  @Test func aWrongExpectationIsRecordedAsAnIssue() async {
    let store = TestStore(initialState: Tally(), reducer: TallyReducer())
    await withKnownIssue("the state is 2, not 3") {
      await store.send(.add(2)) { $0.count = 3 }
    } matching: { issue in
      issue.description.contains("count")
    }
    #expect(store.state.count == 2)
  }

  @Test func aRightExpectationRecordsNoIssue() async {
    let store = TestStore(initialState: Tally(), reducer: TallyReducer())
    await store.send(.add(2)) {
      $0.count = 2
      $0.history = [2]
    }
    await store.finish()
  }
}
