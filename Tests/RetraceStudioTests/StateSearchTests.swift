import Testing

@testable import RetraceStudio

@Suite struct StateSearchTests {
  /// A value that writes one member itself, then a nested object whose key is `spotify`:
  /// a key the encoder meets where it cannot throw.
  private struct Payment: Encodable {
    enum Key: String, CodingKey { case beneficiary, spotify, amount }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      try container.encode("Spotify AB", forKey: .beneficiary)
      var nested = container.nestedContainer(keyedBy: Key.self, forKey: .spotify)
      try nested.encode(12, forKey: .amount)
    }
  }

  /// Keys and leaves are found in the state's order, a key that matches giving its value's
  /// path; the search stops at its limit and says it is not complete.
  @Test func findsKeysAndLeavesInOrderUpToTheLimit() throws {
    let all = try StateSearch(Payment(), query: "SPOTIFY", limit: 10)
    #expect(all.paths == [[.key("beneficiary")], [.key("spotify")]])
    #expect(all.complete)
    let numbers = try StateSearch(Payment(), query: "12", limit: 10)
    #expect(numbers.paths == [[.key("spotify"), .key("amount")]])
  }

  /// A match past the limit at a nested container's key, with nothing after it that
  /// matches, still makes the search incomplete.
  @Test func aMatchPastTheLimitAtANestedKeyIsNotLost() throws {
    let search = try StateSearch(Payment(), query: "spotify", limit: 1)
    #expect(search.paths == [[.key("beneficiary")]])
    #expect(!search.complete)
  }
}
