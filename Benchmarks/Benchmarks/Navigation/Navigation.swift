// W7: 1,000,000 coordinator actions (push, pop, present, dismiss, select tab) on the posts
// example's tab bar, every one checked against its flow rules; one in a hundred is refused.
// W0 navigation is the same actions applied by the reducer directly, the floor for W7.
import Benchmark
import ExampleDomains
import Retrace
import RetraceBenchmarkSupport
import RetraceCoordinator

let benchmarks: @Sendable () -> Void = {
  let count = BenchmarkSettings.actions
  let zeroPerAction = MallocTolerance.absolute(count / 1_000)

  Benchmark(
    "W0_navigation_reducer", configuration: BenchmarkSettings.configuration(mallocs: zeroPerAction)
  ) {
    benchmark, actions in
    let reducer = NavigationReducer(rules: PostsFlow.rules)
    var state = PostsFlow.initialNavigation
    benchmark.startMeasurement()
    for action in actions {
      _ = reducer.reduce(into: &state, action: action)
    }
    benchmark.stopMeasurement()
    blackHole(state)
  } setup: {
    Workloads.navigationActions(count: count)
  }

  Benchmark(
    "W7_navigation_send", configuration: BenchmarkSettings.configuration(mallocs: zeroPerAction)
  ) {
    benchmark, actions in
    onMainActor(benchmark) { benchmark in
      let store = Store(
        initialState: PostsFlow.initialNavigation,
        reducer: NavigationReducer(rules: PostsFlow.rules))
      benchmark.startMeasurement()
      for action in actions {
        store.send(action)
      }
      benchmark.stopMeasurement()
      blackHole(store.state)
    }
  } setup: {
    Workloads.navigationActions(count: count)
  }
}
