import Foundation
import Retrace
import RetraceExamples

/// What the live tests start with: a Studio recording live sessions in a fresh directory of
/// its own, and apps connected to it.
extension StudioHarness {
  /// A Studio on a free port serving no file, recording live sessions with `domains` in a
  /// fresh directory; `end()` stops it and removes the directory.
  static func live(domains: [any Domain] = Examples.domains) async throws -> StudioHarness {
    let directory = try LiveSessionTests.directory()
    do {
      var studio = try await LiveSessionTests.studio(directory, domains: domains)
      studio.liveDirectory = directory
      return studio
    } catch {
      try? FileManager.default.removeItem(atPath: directory)
      throw error
    }
  }

  /// An app connected to the live endpoint with the token, that has sent its banking `hello`
  /// as `appName`.
  func connectApp(_ appName: String) async throws -> RawWebSocket {
    let link = try await RawWebSocket.connect(port: port, token: Self.token)
    try await link.send(try RawWebSocket.hello(appName: appName))
    return link
  }

  /// Stops the Studio without waiting for it, and removes the directory of a `live` one: for
  /// a `defer`.
  func end() {
    let studio = self
    Task { await studio.stop() }
    if let liveDirectory { try? FileManager.default.removeItem(atPath: liveDirectory) }
  }
}
