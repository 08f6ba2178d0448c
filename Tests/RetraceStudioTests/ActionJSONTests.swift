import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceStudio

/// An action typed on the page as JSON (the form the actions endpoint shows) decodes as the
/// domain's action, or is refused with one line naming the problem (and the field, for a
/// number out of its range).
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
    // A whole number beyond 64 bits, for an integer field: which field, and that it is out of
    // range (not "an integer expected, a float found").
    (
      #"{"moveAccount":{"from":1180591620717411303424,"to":2}}"#,
      "the action is not a banking action: at moveAccount.from: the number 1.1805916207174113e+21 is out of range for Int"
    ),
    (
      #"{"moveAccount":{"from":1,"to":-1180591620717411303424}}"#,
      "the action is not a banking action: at moveAccount.to: the number -1.1805916207174113e+21 is out of range for Int"
    ),
    (
      #"{"addTransaction":{"amount":1e30,"beneficiary":"Gym","date":0,"iban":"NL91"}}"#,
      "the action is not a banking action: at addTransaction.amount: the number 1e+30 is out of range for Int"
    ),
    // A fraction is a float where an integer is expected.
    (
      #"{"moveAccount":{"from":1.5,"to":2}}"#,
      "the action is not a banking action: at moveAccount.from: Expected an integer but found a float"
    ),
  ])
  func aBadActionIsRefusedWithOneLine(_ text: String, _ start: String) throws {
    do {
      _ = try ActionJSON.decode(text, as: bankingDomain)
      Issue.record("\(text) decoded")
    } catch let error as SessionError {
      #expect(StudioHandler.status(error) == 400)
      #expect(error.message.hasPrefix(start), "\(error.message)")
      #expect(!error.message.contains("\n"))
      #expect(!error.message.contains("byte offset"), "\(error.message)")
    }
  }
}
