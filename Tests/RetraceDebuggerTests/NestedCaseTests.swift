import Retrace
import RetraceDebugger
import RetraceLog
import Testing

/// A parent that carries a child feature's actions as `.detail(.tick)`, TCA's way.
enum ClockAction: Codable, Equatable, Sendable {
  case tick
  case rename(String)
}

enum ShellAction: Codable, Equatable, Sendable {
  case open
  case detail(ClockAction)
}

struct Shell: Codable, Equatable, Sendable {
  var ticks = 0
  var name = ""
}

let shellDomain = DomainDefinition(
  name: "shell", summary: "A parent with a clock child.", initialState: Shell(),
  reducer: Reduce<Shell, ShellAction> { state, action in
    switch action {
    case .open: break
    case .detail(.tick): state.ticks += 1
    case .detail(.rename(let name)): state.name = name
    }
    return .none
  },
  sampleActions: [.open, .detail(.tick)])

@Suite struct NestedCaseTests {
  func session() -> DebugSession<DomainDefinition<Shell, ShellAction>> {
    let actions: [ShellAction] = [.open, .detail(.tick), .detail(.rename("Tea")), .detail(.tick)]
    return DebugSession(
      debugger: ReplayEngine(
        domain: shellDomain, session: RecordedSession(domain: shellDomain, actions: actions)))
  }

  @Test func findMatchesACaseByItsPathOrItsTopLevelCase() {
    var debug = session()
    #expect(
      debug.perform("find detail.rename").output.hasPrefix(#"at 3 of 4: detail.rename "Tea""#))
    _ = debug.perform("goto 0")
    #expect(debug.perform("find detail").output.hasPrefix("at 2 of 4: detail.tick at "))
    #expect(debug.perform("find detail.tick").output.hasPrefix("at 4 of 4: detail.tick at "))
  }

  @Test func aNestedCaseNamedAloneIsAnErrorThatGivesItsPath() {
    var debug = session()
    let reply = debug.perform("find tick")
    #expect(reply.isError)
    #expect(
      reply.output.contains(
        "unknown action case 'tick'; 'tick' is a nested case: use detail.tick; known: open, detail")
    )
  }

  @Test func theTextOfAnActionIsItsPathAndItsInnermostPayload() {
    let writer = JSONLines.ActionWriter<ShellAction>()
    #expect(writer.text(for: .detail(.rename("Tea"))) == #"detail.rename "Tea""#)
    #expect(writer.text(for: .detail(.tick)) == "detail.tick")
    #expect(writer.text(for: .open) == "open")
  }
}
