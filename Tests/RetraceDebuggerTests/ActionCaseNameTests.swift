import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import Testing

@Suite struct ActionCaseNameTests {
  @Test func namesAreTheFirstKeyOfTheEncoding() {
    #expect(actionCaseName(of: CounterAction.increment) == "increment")
    #expect(actionCaseName(of: CounterAction.reset) == "reset")
    #expect(actionCaseName(of: BankingAction.moveAccount(from: 1, to: 0)) == "moveAccount")
    #expect(
      actionCaseName(of: BankingAction.addAccount(name: "A", kind: .savings, iban: "NL00", date: 0))
        == "addAccount")
    #expect(actionCaseName(of: SettingsAction.toggle(key: "darkMode")) == "toggle")
  }

  @Test func aStringEncodedActionIsNamedByItsString() {
    #expect(actionCaseName(of: AccountKind.investment) == "investment")
  }

  @Test func namesAgreeWithJSONForEveryWorkloadAction() throws {
    for domain in Examples.domains {
      try agree(domain)
    }
  }

  private func agree<D: Domain>(_ domain: D) throws {
    let (actions, _) = domain.generate(count: 300, seed: 9)
    for action in actions {
      let json =
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(action)) as! [String: Any]
      #expect(json.keys.first == actionCaseName(of: action))
      #expect(domain.actionCases.contains(actionCaseName(of: action)))
    }
  }
}
