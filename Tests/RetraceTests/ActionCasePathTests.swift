import Retrace
import Testing

/// A child feature's actions, and an app that carries them the ways TCA apps do.
enum TimerAction: Codable, Equatable, Sendable {
  case tick
  case set(seconds: Int)
}

enum DetailAction: Codable, Equatable, Sendable {
  case timer(TimerAction)
  case rename(String)
  case binding(BindingAction<NoteForm>)
}

struct Transfer: Codable, Equatable, Sendable {
  var amount: Int
}

enum Tint: String, Codable, Equatable, Sendable { case red, blue }

enum AppAction: Codable, Equatable, Sendable {
  case detail(DetailAction)
  case labeled(action: DetailAction)
  case row(id: Int, action: DetailAction)
  case maybe(DetailAction?)
  case addTransfer(Transfer)
  case tint(Tint)
  case reset
}

@Suite struct ActionCasePathTests {
  @Test func aChildActionNestsItsCaseUnderTheParentCase() {
    #expect(actionCasePath(of: AppAction.detail(.rename("Tea"))) == "detail.rename")
    #expect(actionCasePath(of: AppAction.detail(.timer(.tick))) == "detail.timer.tick")
    #expect(actionCasePath(of: AppAction.detail(.timer(.set(seconds: 3)))) == "detail.timer.set")
    #expect(
      actionCasePath(of: AppAction.detail(.binding(.set(\.title, "Tea")))) == "detail.binding")
  }

  @Test func onlyASingleUnlabeledEnumPayloadThatIsNotARawValueNests() {
    #expect(actionCasePath(of: AppAction.labeled(action: .rename("x"))) == "labeled")
    #expect(actionCasePath(of: AppAction.row(id: 1, action: .rename("x"))) == "row")
    #expect(actionCasePath(of: AppAction.maybe(.rename("x"))) == "maybe")
    #expect(actionCasePath(of: AppAction.addTransfer(Transfer(amount: 1))) == "addTransfer")
    #expect(actionCasePath(of: AppAction.tint(.red)) == "tint")
    #expect(actionCasePath(of: AppAction.reset) == "reset")
    // The case name is unchanged: the outermost case.
    #expect(actionCaseName(of: AppAction.detail(.timer(.tick))) == "detail")
  }

  @Test func theInnermostActionIsTheOneAtTheEndOfThePath() throws {
    let inner = try #require(innermostAction(of: AppAction.detail(.timer(.tick))) as? TimerAction)
    #expect(inner == .tick)
    let flat = try #require(innermostAction(of: AppAction.tint(.blue)) as? AppAction)
    #expect(flat == .tint(.blue))
  }

  @Test func aFilterMatchesItsPathAndThePathsUnderItByWholeSegments() {
    #expect(actionCasePath("detail.timer.tick", matches: "detail"))
    #expect(actionCasePath("detail.timer.tick", matches: "detail.timer"))
    #expect(actionCasePath("detail.timer.tick", matches: "detail.timer.tick"))
    #expect(!actionCasePath("detail.timer.tick", matches: "detail.tim"))
    #expect(!actionCasePath("detail.timer.tick", matches: "tick"))
    #expect(!actionCasePath("detailed", matches: "detail"))
    #expect(actionCasePath("reset", matches: "reset"))
  }
}
