// W7: 1,000,000 coordinator actions (push, pop, present, dismiss, select tab) on the posts
// example's tab bar, every one checked against its flow rules; one in a hundred is refused.
// W0 navigation is the same actions applied by the reducer directly, the floor for W7.
//
// W7a, W7r, W7p, W7t and W7i read the navigation after every action the way an app's own
// code does, from outside RetraceCoordinator: every route on every stack (`allRoutes`, and
// `routes`, which builds no array), the path (`path`), a tab's stack (`stack(ofTab:)`), and
// the posts example's screen invariant (`ScreenStates.sync` then `isInStep`). Their floor is W0 navigation: the figure over it is
// the accessor's cost.
import Benchmark
import Retrace
import RetraceBenchmarkSupport
import RetraceCoordinator
import RetraceExamples

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

  /// The same actions applied directly, with `read` run on the state after each.
  func readingAfterEachAction(
    _ name: String, mallocs: MallocTolerance?,
    read: @escaping @Sendable (NavigationState<PostsRoute>) -> Int
  ) {
    Benchmark(name, configuration: BenchmarkSettings.configuration(mallocs: mallocs)) {
      benchmark, actions in
      let reducer = NavigationReducer(rules: PostsFlow.rules)
      var state = PostsFlow.initialNavigation
      var total = 0
      benchmark.startMeasurement()
      for action in actions {
        _ = reducer.reduce(into: &state, action: action)
        total &+= read(state)
      }
      benchmark.stopMeasurement()
      blackHole(total)
      blackHole(state)
    } setup: {
      Workloads.navigationActions(count: count)
    }
  }

  // One array per call is what `allRoutes` promises (it returns one); the rest allocate
  // nothing per action.
  readingAfterEachAction("W7a_navigation_all_routes", mallocs: .relative(5)) {
    $0.allRoutes.count
  }
  readingAfterEachAction("W7r_navigation_routes", mallocs: zeroPerAction) {
    var count = 0
    for route in $0.routes where route.name != "share" { count &+= 1 }
    return count
  }
  readingAfterEachAction("W7p_navigation_path", mallocs: zeroPerAction) {
    $0.path.stack.count
  }
  readingAfterEachAction("W7t_navigation_stack_of_tab", mallocs: zeroPerAction) {
    $0.stack(ofTab: "feed")?.count ?? 0
  }

  Benchmark(
    "W7i_navigation_screens_in_step",
    configuration: BenchmarkSettings.configuration(mallocs: zeroPerAction)
  ) {
    benchmark, actions in
    let reducer = NavigationReducer(rules: PostsFlow.rules)
    var state = PostsFlow.initialNavigation
    var screens = ScreenStates<PostsRoute, PostsScreen>(for: state, make: PostsScreen.init(route:))
    var inStep = 0
    benchmark.startMeasurement()
    for action in actions {
      _ = reducer.reduce(into: &state, action: action)
      screens.sync(with: state, make: PostsScreen.init(route:))
      if screens.isInStep(with: state, make: PostsScreen.init(route:)) { inStep &+= 1 }
    }
    benchmark.stopMeasurement()
    blackHole(inStep)
    blackHole(screens)
  } setup: {
    Workloads.navigationActions(count: count)
  }
}
