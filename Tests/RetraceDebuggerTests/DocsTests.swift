import Foundation
import Testing

/// Code in the docs that names a file is that file: docs/DOMAINS.md shows the app package
/// the suite builds and tests (IntegrationTests/AppPackage).
@Suite struct DocsTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func everyBlockThatNamesAFileIsThatFile() throws {
    let text = try String(contentsOf: Self.root.appendingPathComponent("docs/DOMAINS.md"), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    var checked = 0
    for (index, line) in lines.enumerated() where line.hasPrefix("<!-- file: ") {
      let name = line.dropFirst("<!-- file: ".count).dropLast(" -->".count)
      #expect(lines[index + 1] == "```swift", "\(name): no code block after the marker")
      let end = try #require(lines[(index + 2)...].firstIndex(of: "```"), "\(name): the block does not end")
      let block = lines[(index + 2)..<end].joined(separator: "\n")
      let file = try String(contentsOf: Self.root.appendingPathComponent(String(name)), encoding: .utf8)
      #expect(block == file.trimmingCharacters(in: .newlines), "docs/DOMAINS.md shows \(name) as it is not")
      checked += 1
    }
    #expect(checked == 3)
  }
}
