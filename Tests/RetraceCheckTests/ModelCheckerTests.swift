import Foundation
import Retrace
import RetraceCheck
import RetraceExamples
import Testing

@Suite struct ModelCheckerTests {
  @Test func findsThePlantedRegistrationBugWithItsShortestCounterexample() async throws {
    let result = try await ModelChecker(domain: registrationDomain).check()
    #expect(result.outcome == .violated)
    let finding = try #require(result.finding)
    #expect(finding.name == "registered-only-when-valid")
    #expect(finding.actions.count == 7)
    #expect(finding.state.registeredUserID != nil)
    #expect(!finding.state.form.brokenRules.isEmpty)
    print(result)
  }
}
