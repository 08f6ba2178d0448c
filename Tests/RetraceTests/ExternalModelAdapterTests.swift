import Retrace
import Synchronization
import Testing

/// An outside model: a plain class that reports its changes, and may clamp what it is given.
@MainActor
final class Thermostat: ChangeReporting {
  private let callbacks = ChangeCallbacks()
  var range: ClosedRange<Int> = -100...100
  var target = 20 {
    didSet {
      target = min(max(target, range.lowerBound), range.upperBound)
      callbacks.notify()
    }
  }
  private(set) var writes = 0

  func onChange(_ handler: @escaping @MainActor () -> Void) -> AnyObject {
    callbacks.add(handler)
  }

  /// Sets the target as the store's writes do, counting them.
  var targetFromStore: Int {
    get { target }
    set {
      writes += 1
      target = newValue
    }
  }
}

struct Heating: Equatable, Sendable {
  var target = 20
  var edits = 0
}

enum HeatingAction: Equatable, Sendable {
  case setTarget(Int)
  case raise
  case externalChange(target: Int)
}

let heatingReducer = Reduce<Heating, HeatingAction> { state, action in
  switch action {
  case .setTarget(let target):
    state.target = target
    state.edits += 1
  case .raise:
    state.target += 1
  case .externalChange(let target):
    state.target = target
  }
  return .none
}

final class ActionLog<S: Sendable, A: Sendable>: StoreRecorder {
  private let mutex = Mutex<[A]>([])
  var actions: [A] { mutex.withLock { $0 } }
  func record(_ transition: Transition<S, A>) { mutex.withLock { $0.append(transition.action) } }
}

@MainActor
@Suite struct ExternalModelAdapterTests {
  let store = Store(initialState: Heating(), reducer: heatingReducer)
  let thermostat = Thermostat()
  let log = ActionLog<Heating, HeatingAction>()

  init() {
    store.attach(log)
  }

  func adapter() -> ExternalModelAdapter<Heating, HeatingAction, Int> {
    ExternalModelAdapter(
      store: store, state: \.target, model: thermostat, keyPath: \.targetFromStore,
      externalChange: { .externalChange(target: $0) })
  }

  @Test func aChangeOfTheModelIsRecordedAsAnExternalChange() {
    let adapter = adapter()
    thermostat.target = 23
    #expect(store.state.target == 23)
    #expect(log.actions == [.externalChange(target: 23)])
    // A change that leaves the value equal records nothing.
    thermostat.target = 23
    #expect(log.actions.count == 1)
    _ = adapter
  }

  @Test func aChangeOfTheStoreIsWrittenToTheModelWithoutAnEcho() {
    let adapter = adapter()
    store.send(.setTarget(18))
    store.send(.raise)
    #expect(thermostat.target == 19)
    #expect(thermostat.writes == 2)
    // The model's callbacks for those writes did not come back as actions.
    #expect(log.actions == [.setTarget(18), .raise])
    // An outside change is not written back to the model it came from.
    thermostat.target = 25
    #expect(thermostat.writes == 2)
    _ = adapter
  }

  @Test func aReplayOfTheRecordedActionsReproducesTheLiveState() {
    let adapter = adapter()
    store.send(.setTarget(18))
    thermostat.target = 21
    store.send(.raise)
    thermostat.target = 30
    store.send(.setTarget(17))
    var replayed = Heating()
    for action in log.actions { _ = heatingReducer.reduce(into: &replayed, action: action) }
    #expect(replayed == store.state)
    #expect(thermostat.target == store.state.target)
    _ = adapter
  }

  @Test func startingBringsTheStoreInStepWithTheModel() {
    thermostat.target = 26
    let adapter = adapter()
    #expect(store.state.target == 26)
    #expect(log.actions == [.externalChange(target: 26)])
    #expect(thermostat.writes == 0)
    _ = adapter
  }

  @Test func aValueTheModelAdjustsAsItIsWrittenIsRecordedAsItsChange() {
    thermostat.range = 5...25
    let adapter = adapter()
    store.send(.setTarget(40))
    #expect(thermostat.target == 25)
    #expect(store.state.target == 25)
    #expect(log.actions == [.setTarget(40), .externalChange(target: 25)])
    _ = adapter
  }

  @Test func aStoppedOrReleasedAdapterNoLongerConnectsThem() {
    let adapter = adapter()
    adapter.stop()
    thermostat.target = 24
    store.send(.setTarget(10))
    #expect(thermostat.target == 24)
    #expect(log.actions == [.setTarget(10)])

    var released: ExternalModelAdapter? = self.adapter()
    #expect(log.actions.last == .externalChange(target: 24))
    released = nil
    thermostat.target = 12
    store.send(.raise)
    #expect(thermostat.target == 12)
    #expect(store.state.target == 25)
    _ = released
  }
}
