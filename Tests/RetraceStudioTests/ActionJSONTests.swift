import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceStudio

/// An action typed on the page as JSON (the form the actions endpoint shows) decodes as the
/// domain's action, or is refused with one line naming the problem.
struct ActionJSONTests {
  /// Every example domain's generated actions, shown as the endpoint shows them and read
  /// back, are the same actions.
  @Test(arguments: Examples.domains.map(\.name))
  func theJSONTheActionsEndpointShowsReadsBack(_ name: String) throws {
    let domain = try #require(Examples.domains.first { $0.name == name })
    try roundTrip(domain)
  }

  private func roundTrip<D: Domain>(_ domain: D) throws {
    guard domain.workload != nil else { return }
    let (actions, _) = domain.generate(count: 300, seed: 11)
    for action in actions {
      let encoded = try CBOREncoder().encode(action)
      let text = try CBORValue(decoding: encoded).jsonText
      let (bytes, decoded) = try ActionJSON.decode(text, as: domain)
      // The same action: its encoding is the one the app's trace writes.
      #expect(try CBOREncoder().encode(decoded) == encoded, "\(text)")
      let again = try bytes.withUnsafeBytes { try domain.decodeAction(from: $0) }
      #expect(try CBOREncoder().encode(again) == encoded)
    }
  }

  @Test(arguments: [
    ("{\"deposit\":", "the action is not JSON"),
    (
      "{\"fly\":{\"to\":\"moon\"}}",
      "the action is not a banking action: 'fly' is not one of its cases (addAccount,"
    ),
    (
      "{\"moveAccount\":{\"from\":\"one\",\"to\":2}}",
      "the action is not a banking action: at moveAccount.from:"
    ),
    (
      "{\"moveAccount\":{\"to\":2}}",
      "the action is not a banking action: at moveAccount: 'from' is missing"
    ),
    ("[1, 2]", "the action is not a banking action"),
  ])
  func aBadActionIsRefusedWithOneLine(_ text: String, _ start: String) throws {
    do {
      _ = try ActionJSON.decode(text, as: bankingDomain)
      Issue.record("\(text) decoded")
    } catch let error as APIError {
      #expect(error.status == 400)
      #expect(error.message.hasPrefix(start), "\(error.message)")
      #expect(!error.message.contains("\n"))
      #expect(!error.message.contains("byte offset"), "\(error.message)")
    }
  }
}
