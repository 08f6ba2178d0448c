import Testing

@testable import RetraceLiveProtocol

/// The addresses a link is given: the line `retrace serve` prints, or the endpoint's own.
struct StudioEndpointTests {
  @Test func theLineRetraceServePrintsIsAccepted() throws {
    let plain = try StudioEndpoint(parsing: "http://127.0.0.1:7420/?token=abc", token: nil)
    #expect(plain.host == "127.0.0.1" && plain.port == 7420 && plain.token == "abc")
    let labelled = try StudioEndpoint(
      parsing: "Retrace Studio: http://127.0.0.1:7420/?token=abc\n", token: nil)
    #expect(labelled == plain)
    let ws = try StudioEndpoint(parsing: "ws://[::1]:9000/api/live", token: "t")
    #expect(ws.host == "::1")
    #expect(ws.hostHeader == "[::1]:9000")
    #expect(ws.token == "t")
    let local = try StudioEndpoint(parsing: "ws://localhost:9000/api/live?token=x", token: nil)
    #expect(local.hostHeader == "localhost:9000")
    #expect(local.path == LiveProtocol.endpointPath)
  }

  @Test(arguments: [
    "127.0.0.1:7420", "https://127.0.0.1:7420/?token=a", "http://127.0.0.1:7420/",
    "http://127.0.0.1:7420/api/live?token=a", "ws://127.0.0.1:7420/?token=a",
    "http://127.0.0.1:0/?token=a", "http://127.0.0.1:99999/?token=a", "http://:80/?token=a",
    "http://user@127.0.0.1:7420/?token=a",
  ])
  func badAddressesAreRefused(_ address: String) {
    #expect(throws: LiveProtocolError.self) { try StudioEndpoint(parsing: address, token: nil) }
    do {
      _ = try StudioEndpoint(parsing: address, token: nil)
    } catch {
      #expect(error.code == .invalidAddress)
    }
  }
}
