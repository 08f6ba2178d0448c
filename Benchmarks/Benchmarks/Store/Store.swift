// The store's hot path: W0 (the reducer called directly, the floor), W1 (counter through
// `send`), W2 (banking through `send`, on a fresh and on a grown state), W3 (observers)
// W3s (observers of a part of the state), W3f (a field observed on its own), W1s (W1
// through a child store made by `scope`), W1e and W1d (an effect per action, built and
// dropped, or debounced).
//
// This is also how to benchmark your own reducer with Retrace: generate the actions before
// the measurement starts, build the store outside it, and measure only the `send` loop.
import Benchmark
import Retrace
import RetraceBenchmarkSupport
import RetraceExamples

let benchmarks: @Sendable () -> Void = {
  let count = BenchmarkSettings.actions
  let zeroPerAction = MallocTolerance.absolute(count / 1_000)

  // MARK: W0, the floor: the reducer called in a loop on a local state.

  Benchmark(
    "W0_counter_reducer", configuration: BenchmarkSettings.configuration(mallocs: zeroPerAction)
  ) {
    benchmark, actions in
    let reducer = CounterReducer()
    var state = CounterState()
    benchmark.startMeasurement()
    for action in actions {
      _ = reducer.reduce(into: &state, action: action)
    }
    benchmark.stopMeasurement()
    blackHole(state)
  } setup: {
    Workloads.counterActions(count: count)
  }

  for grown in [false, true] {
    let name = grown ? "W0_banking_reducer_grown_state" : "W0_banking_reducer"
    let configuration = BenchmarkSettings.configuration(
      mallocs: .relative(10), maxIterations: grown ? 5 : 10)
    Benchmark(name, configuration: configuration) { benchmark, actions in
      let reducer = BankingReducer()
      var state = Workloads.bankingState(
        transactionsPerAccount: grown ? BenchmarkSettings.transactionsPerGrownAccount : 1)
      benchmark.startMeasurement()
      for action in actions {
        _ = reducer.reduce(into: &state, action: action)
      }
      benchmark.stopMeasurement()
      blackHole(state)
    } setup: {
      Workloads.transactionActions(count: count)
    }
  }

  // MARK: W1, W2: the same actions through `store.send`.

  Benchmark(
    "W1_counter_send", configuration: BenchmarkSettings.configuration(mallocs: zeroPerAction)
  ) {
    benchmark, actions in
    onMainActor(benchmark) { benchmark in
      let store = Store(initialState: CounterState(), reducer: CounterReducer())
      benchmark.startMeasurement()
      for action in actions {
        store.send(action)
      }
      benchmark.stopMeasurement()
      blackHole(store.state)
    }
  } setup: {
    Workloads.counterActions(count: count)
  }

  // MARK: W1s: W1's actions sent through a child store (`scope`) of a parent that embeds the
  // counter with `Scope`: what a child view's `send` costs over the parent's. W1p sends the
  // same actions, embedded, to that parent while the child store is alive: the parent's
  // send in the same app, which W1s is compared with.

  for throughChild in [true, false] {
    let name = throughChild ? "W1s_counter_scoped_send" : "W1p_counter_parent_send_with_child"
    Benchmark(name, configuration: BenchmarkSettings.configuration(mallocs: zeroPerAction)) {
      benchmark, actions in
      onMainActor(benchmark) { benchmark in
        let store = Store(
          initialState: CounterParentState(),
          reducer: Scope(
            state: \CounterParentState.counter, action: CounterParentAction.counterCase,
            child: CounterReducer()))
        let child = store.scope(state: \.counter, action: CounterParentAction.counterCase)
        benchmark.startMeasurement()
        if throughChild {
          for action in actions {
            child.send(action)
          }
        } else {
          for action in actions {
            store.send(.counter(action))
          }
        }
        benchmark.stopMeasurement()
        blackHole(child.state)
      }
    } setup: {
      Workloads.counterActions(count: count)
    }
  }

  for grown in [false, true] {
    let name = grown ? "W2_banking_send_grown_state" : "W2_banking_send"
    let configuration = BenchmarkSettings.configuration(
      mallocs: .relative(10), maxIterations: grown ? 5 : 10)
    Benchmark(name, configuration: configuration) { benchmark, actions in
      onMainActor(benchmark) { benchmark in
        let store = Store(
          initialState: Workloads.bankingState(
            transactionsPerAccount: grown ? BenchmarkSettings.transactionsPerGrownAccount : 1),
          reducer: BankingReducer())
        benchmark.startMeasurement()
        for action in actions {
          store.send(action)
        }
        benchmark.stopMeasurement()
        blackHole(store.state)
      }
    } setup: {
      Workloads.transactionActions(count: count)
    }
  }

  // MARK: W3: W1 with 100 subscribers.

  Benchmark(
    "W3_counter_send_100_observers",
    configuration: BenchmarkSettings.configuration(mallocs: zeroPerAction)
  ) {
    benchmark, actions in
    onMainActor(benchmark) { benchmark in
      let store = Store(initialState: CounterState(), reducer: CounterReducer())
      let sink = Sink()
      let subscriptions = (0..<100).map { _ in
        store.subscribe { old, new in sink.changes &+= new.count &- old.count }
      }
      benchmark.startMeasurement()
      for action in actions {
        store.send(action)
      }
      benchmark.stopMeasurement()
      blackHole(sink.changes)
      withExtendedLifetime(subscriptions) {}
    }
  } setup: {
    Workloads.counterActions(count: count)
  }

  // MARK: W3s: W1 with 100 subscribers to a part of the state (`subscribe(to:)`), the
  // form an app uses per view model; its cost per subscriber sets against W3's.

  Benchmark(
    "W3s_counter_send_100_scoped_subscribers",
    configuration: BenchmarkSettings.configuration(mallocs: zeroPerAction)
  ) {
    benchmark, actions in
    onMainActor(benchmark) { benchmark in
      let store = Store(initialState: CounterState(), reducer: CounterReducer())
      let sink = Sink()
      let subscriptions = (0..<100).map { _ in
        store.subscribe(to: \.count) { old, new in sink.changes &+= new &- old }
      }
      benchmark.startMeasurement()
      for action in actions {
        store.send(action)
      }
      benchmark.stopMeasurement()
      blackHole(sink.changes)
      withExtendedLifetime(subscriptions) {}
    }
  } setup: {
    Workloads.counterActions(count: count)
  }

  // MARK: W3f: W1 with the count observed on its own (`store.count` read, as a SwiftUI view
  // reads it): what per-field observation adds to every send.

  Benchmark(
    "W3f_counter_send_field_observed",
    configuration: BenchmarkSettings.configuration(mallocs: zeroPerAction)
  ) {
    benchmark, actions in
    onMainActor(benchmark) { benchmark in
      let store = Store(initialState: CounterState(), reducer: CounterReducer())
      blackHole(store.count)
      benchmark.startMeasurement()
      for action in actions {
        store.send(action)
      }
      benchmark.stopMeasurement()
    }
  } setup: {
    Workloads.counterActions(count: count)
  }

  // MARK: W1e, W1d: W1 with an effect per action. W1e builds the effect a debounced search
  // would (`.run`) and drops it in the reducer: the effect value's own cost. W1d returns it
  // debounced, on a clock whose wait never ends during the run, so that every action after
  // the first replaces the waiting one: what a debounce adds to each action it drops.

  for debounced in [false, true] {
    let name = debounced ? "W1d_counter_send_debounced" : "W1e_counter_send_effect_built"
    Benchmark(name, configuration: BenchmarkSettings.configuration(mallocs: .relative(10))) {
      benchmark, actions in
      onMainActor(benchmark) { benchmark in
        let counter = CounterReducer()
        let clock = ContinuousClock()
        let reducer = Reduce<CounterState, CounterAction> { state, action in
          _ = counter.reduce(into: &state, action: action)
          let search = Effect<CounterAction>.run { _ in }
          guard debounced else {
            blackHole(search)
            return .none
          }
          return search.debounce(id: "search", for: .seconds(3_600), clock: clock)
        }
        let store = Store(initialState: CounterState(), reducer: reducer)
        benchmark.startMeasurement()
        for action in actions {
          store.send(action)
        }
        benchmark.stopMeasurement()
        blackHole(store.runningEffectCount)
        store.cancelAllEffects()
      }
    } setup: {
      Workloads.counterActions(count: count)
    }
  }
}

/// What the observers write to, so that their work is not optimized away.
@MainActor
final class Sink {
  var changes = 0
}

/// A parent feature that embeds the counter, for W1s.
struct CounterParentState: Sendable {
  var counter = CounterState()
  var title = ""
}

/// The parent's actions: the counter's, embedded.
enum CounterParentAction: Sendable {
  case counter(CounterAction)
  case rename(String)

  static let counterCase = ActionCase<CounterParentAction, CounterAction>(
    embed: CounterParentAction.counter,
    extract: { if case .counter(let action) = $0 { action } else { nil } })
}
