import Retrace
import RetraceDebugger
import RetraceExamples
import Testing

@Suite struct ActionLabelTests {
  enum Route: Codable, Sendable {
    case about
    case detail(id: Int)
  }
  enum Child: Codable, Sendable {
    case push(route: Route)
    case pop
  }
  enum AppAction: Codable, Sendable {
    case navigation(Child)
    case tab(action: Child)
    case rename(name: String)
    case complete(id: Int)
    case select(Int)
    case move(Int, Int)
    case setFlags(on: Bool, count: Int, ratio: Double, items: [Int], note: String?)
    case reset
  }

  /// Fields come in the order of the action's encoding (banking's hand-written one writes
  /// the date first); an absent optional is not written. Labels are kept where the case has
  /// them, as Swift prints the value, whether one value or several.
  @Test func casesPathsAndPayloadsReadAsADeveloperWritesThem() {
    #expect(
      actionLabel(AppAction.navigation(.push(route: .about))) == "navigation › push(route: about)")
    #expect(actionLabel(AppAction.tab(action: .pop)) == "tab › pop")
    #expect(
      actionLabel(AppAction.navigation(.push(route: .detail(id: 3))))
        == "navigation › push(route: detail(id: 3))")
    #expect(actionLabel(AppAction.rename(name: "Bob")) == "rename(name: \"Bob\")")
    #expect(actionLabel(AppAction.complete(id: 11)) == "complete(id: 11)")
    #expect(actionLabel(AppAction.select(4)) == "select(4)")
    #expect(actionLabel(AppAction.move(1, 2)) == "move(1, 2)")
    #expect(actionLabel(AppAction.reset) == "reset")
    #expect(
      actionLabel(AppAction.setFlags(on: true, count: -2, ratio: 0.5, items: [1, 2], note: nil))
        == "setFlags(on: true, count: -2, ratio: 0.5, items: [2 items])")
    #expect(
      actionLabel(
        BankingAction.addTransaction(
          iban: "NL91ABNA0417164300", amount: -1200, beneficiary: "Spotify", date: 5))
        == "addTransaction(date: 5, iban: \"NL91ABNA0417164300\", amount: -1200, beneficiary: \"Spotify\")"
    )
  }

  @Test func aLabelStaysOnOneShortLineWhateverThePayload() {
    let hostile = AppAction.rename(
      name: "a\nforged line\u{1B}[31m\u{202E}" + String(repeating: "x", count: 10_000))
    let label = actionLabel(hostile)
    #expect(!label.contains("\n") && !label.contains("\u{1B}") && !label.contains("\u{202E}"))
    #expect(label.hasPrefix("rename(name: \"a\\nforged line\\u{1B}"))
    #expect(label.count <= 120)
    let long = actionLabel(hostile, maxLength: 20)
    #expect(long.count == 20 && long.hasSuffix("…"))
    // An emoji with a joiner stays as it is.
    #expect(actionLabel(AppAction.rename(name: "👩‍💻")) == "rename(name: \"👩‍💻\")")
  }
}
