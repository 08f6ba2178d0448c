// C1, C2: the model checker's breadth-first search on the registration example's reducer,
// states told apart by the default fingerprint (a hash of each state's encoding, computed as
// it encodes); C1h is C1 with the state's `Hashable` hash (the state's conformance is
// synthesized, so it hashes every field), C1s with its `StateHash`. The search runs with an
// alphabet wider than the one the domain declares (five values a field instead of three, so
// that a search lasts long enough to time), to depth 5, where the planted bug is not yet
// reachable: every state is expanded. One iteration is one whole search; the custom metrics
// give successor states per second and the bookkeeping bytes per distinct state. C1 runs
// one job. C2 runs two on a longer search (C2a: the same with one).
//
// C3: a state space of millions of distinct states (10,000,000 in the full run) searched to
// --max-states with the default fingerprint: the same reducer with forty values a field. Its
// peak resident memory is what the search holds.
import Benchmark
import Retrace
import RetraceBenchmarkSupport
import RetraceCheck
import RetraceExamples

/// Successor states computed per second, over the whole search.
let successorStatesPerSecond = BenchmarkMetric.custom(
  "successorStatesPerSecond", polarity: .prefersLarger, useScalingFactor: false)
/// The fingerprint table and the paths back, in bytes per distinct state.
let bookkeepingBytesPerState = BenchmarkMetric.custom(
  "bookkeepingBytesPerDistinctState", polarity: .prefersSmaller, useScalingFactor: false)
/// Distinct states found.
let distinctStates = BenchmarkMetric.custom(
  "distinctStates", polarity: .prefersLarger, useScalingFactor: false)

/// The registration domain with `values` values for each field.
func registration(values: Int) -> DomainDefinition<RegistrationState, RegistrationAction> {
  let samples = ["", "A", "Ad", "Ada", "Adam", "Ada Lovelace", "analytical", "engine"]
  let typed = (0..<values).map { index in
    index < samples.count ? samples[index] : "value\(index)"
  }
  return DomainDefinition(
    name: "registration", summary: "", initialState: RegistrationState(),
    reducer: RegistrationReducer(registrar: { "U-\($0.username)" }),
    sampleActions: RegistrationAction.samples, invariants: registrationInvariants,
    explorationActions: { state in
      var actions: [RegistrationAction] = []
      for field in RegistrationField.allCases {
        for value in typed where value != state.form[field] {
          actions.append(.edit(field: field, value: value))
        }
      }
      actions += [.register, .startOver]
      if state.status == .submitting {
        actions += [
          .registrationSucceeded(userID: "U-\(state.form.username)"),
          .registrationFailed(message: "offline"),
        ]
      }
      return actions
    })
}

func search(
  _ benchmark: Benchmark, domain: DomainDefinition<RegistrationState, RegistrationAction>,
  depth: Int?, maxStates: Int, jobs: Int, fingerprint: StateFingerprint = .structure
) async {
  do {
    benchmark.startMeasurement()
    // The jobs' tasks on threads of their own (see `DispatchTaskExecutor`).
    let result = try await withTaskExecutorPreference(DispatchTaskExecutor.shared) {
      try await ModelChecker(domain: domain, fingerprint: fingerprint).check(
        depth: depth, maxStates: maxStates, jobs: jobs)
    }
    benchmark.stopMeasurement()
    let distinct = result.distinctStates ?? 1
    benchmark.measurement(successorStatesPerSecond, Int(result.statesPerSecond))
    benchmark.measurement(bookkeepingBytesPerState, result.bookkeepingBytes / max(distinct, 1))
    benchmark.measurement(distinctStates, distinct)
  } catch {
    benchmark.error("check failed: \(error)")
  }
}

let benchmarks: @Sendable () -> Void = {
  let metrics: [BenchmarkMetric: BenchmarkThresholds] = [
    successorStatesPerSecond: .none, bookkeepingBytesPerState: .none, distinctStates: .none,
  ]
  let wide = registration(values: 5)
  let depth = BenchmarkSettings.isSmoke ? 3 : 5
  Benchmark(
    "C1_check_registration_1_job",
    configuration: BenchmarkSettings.configuration(
      scaled: false, mallocs: nil, maxIterations: 5, maxSeconds: 20, extraMetrics: metrics)
  ) { benchmark in
    await search(benchmark, domain: wide, depth: depth, maxStates: 50_000_000, jobs: 1)
  }
  // C2: a search long enough for two jobs to matter (the small one is mostly its sequential
  // part): forty values a field, to 300,000 distinct states, with 1 job (C2a) and 2.
  let huge = registration(values: 40)
  for jobs in [1, 2] {
    Benchmark(
      jobs == 1 ? "C2a_check_300k_states_1_job" : "C2_check_300k_states_2_jobs",
      configuration: BenchmarkSettings.configuration(
        scaled: false, mallocs: nil, maxIterations: 3, maxSeconds: 60, extraMetrics: metrics)
    ) { benchmark in
      await search(
        benchmark, domain: huge, depth: nil,
        maxStates: BenchmarkSettings.isSmoke ? 10_000 : 300_000, jobs: jobs)
    }
  }
  for (name, fingerprint) in [
    ("C1h_check_registration_hashable", StateFingerprint.hashable),
    ("C1s_check_registration_state_hash", .stateHash),
  ] {
    Benchmark(
      name,
      configuration: BenchmarkSettings.configuration(
        scaled: false, mallocs: nil, maxIterations: 5, maxSeconds: 20, extraMetrics: metrics)
    ) { benchmark in
      await search(
        benchmark, domain: wide, depth: depth, maxStates: 50_000_000, jobs: 1,
        fingerprint: fingerprint)
    }
  }
  Benchmark(
    "C3_check_10M_distinct_states",
    configuration: BenchmarkSettings.configuration(
      scaled: false, mallocs: nil, maxIterations: 1, maxSeconds: 1,
      extraMetrics: metrics.merging([.peakMemoryResident: .none]) { a, _ in a })
  ) { benchmark in
    await search(
      benchmark, domain: huge, depth: nil,
      maxStates: BenchmarkSettings.isSmoke ? 10_000 : 10_000_000, jobs: 2)
  }
}
