import Foundation
import Testing

/// The Swift code is formatted as `.swift-format` says (`scripts/dev/format` formats it).
@Suite struct StyleTests {
  @Test func theCodeIsFormatted() throws {
    let result = try CLI.run(
      DocsTests.root.appendingPathComponent("scripts/dev/format"), ["--check"], in: DocsTests.root)
    #expect(result.exitCode == 0, "run scripts/dev/format\n\(result)")
  }
}
