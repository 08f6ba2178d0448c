import PropertyBased
import Retrace
import RetraceExamples
import Synchronization
import Testing

/// The central law: replaying recorded actions from the initial state gives the state the
/// live store reached.
@MainActor
@Suite struct ReplayTests {
  func replayEqualsLive<D: Domain>(_ domain: D, seed: UInt64, count: Int) -> Bool {
    // Effects off, as in a replay: the workload answers for them (it sends the results an
    // effect would), and an effect here would reach a domain's live or test dependencies.
    let store = Store(
      initialState: domain.initialState,
      reducer: Reduce<D.State, D.Action> { state, action in
        _ = domain.reduce(into: &state, action: action)
        return .none
      })
    let capture = Capture<D.State, D.Action>()
    store.attach(capture)
    var random = SeededRandom(seed: seed)
    for step in 0..<count {
      store.send(domain.workload!.next(store.state, step, &random))
    }
    var replayed = domain.initialState
    for action in capture.actions.value { _ = domain.reduce(into: &replayed, action: action) }
    return replayed == store.state && capture.actions.value.count == count
  }

  @Test(arguments: Examples.domains.map(\.name))
  func replayOfWorkloadSessionsEqualsLiveState(domainName: String) async {
    let domain = Examples.domain(named: domainName)!
    await propertyCheck(count: 20, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...400)) {
      seed, count in
      let equal = replayEqualsLive(domain, seed: seed, count: count)
      #expect(equal, "seed \(seed), \(count) actions")
    }
  }

  @Test func replayOfArbitraryBankingActionsEqualsLiveState() async {
    let ibans = ["A", "B", "C"]
    let generator = Gen.int(in: 0...2).array(of: 0...200).map { picks in
      picks.enumerated().map { index, pick -> BankingAction in
        switch (pick + index) % 3 {
        case 0:
          .addAccount(
            name: "n\(index)", kind: .savings, iban: ibans[index % 3], date: Double(index))
        case 1:
          .addTransaction(
            iban: ibans[(index * 7) % 3], amount: (index * 7919) % 400_001 - 200_000,
            beneficiary: "b", date: Double(index))
        default: .moveAccount(from: index % 4, to: (index / 2) % 4)
        }
      }
    }
    await propertyCheck(count: 50, input: generator) { actions in
      let store = Store(initialState: BankingState(), reducer: BankingReducer())
      for action in actions { store.send(action) }
      var replayed = BankingState()
      for action in actions { _ = BankingReducer().reduce(into: &replayed, action: action) }
      #expect(replayed == store.state)
      #expect(bankingDomain.invariant(named: "balance-matches-transactions")!.holds(store.state))
    }
  }
}

final class Capture<S: Sendable, A: Sendable>: StoreRecorder {
  let actions = Locked<[A]>([])
  func record(_ transition: Transition<S, A>) { actions.append(transition.action) }
}

final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>
  init(_ value: Value) { mutex = Mutex(value) }
  var value: Value { mutex.withLock { $0 } }
  func append<E>(_ element: E) where Value == [E] { mutex.withLock { $0.append(element) } }
}
