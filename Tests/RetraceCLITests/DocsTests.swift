import Foundation
import Testing

/// Code in the docs that names a file is that file: Retrace's article "Defining a domain"
/// (DefiningADomain.md) shows the app package the suite builds and tests
/// (IntegrationTests/AppPackage), "Testing" (TestingWithTestStore.md) an action made
/// `CasePathable` by hand that RetraceTestingTests compiles and receives by case,
/// docs/SCALE.md the manifests `scripts/ci/check-scale-manifests` checks.
@Suite struct DocsTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test(arguments: [
    ("Sources/Retrace/Retrace.docc/DefiningADomain.md", "swift", 3),
    ("Sources/Retrace/Retrace.docc/TestingWithTestStore.md", "swift", 1),
    ("docs/SCALE.md", "yaml", 2),
  ])
  func everyBlockThatNamesAFileIsThatFile(doc: String, language: String, blocks: Int) throws {
    let text = try String(contentsOf: Self.root.appendingPathComponent(doc), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    var checked = 0
    for (index, line) in lines.enumerated() where line.hasPrefix("<!-- file: ") {
      let name = line.dropFirst("<!-- file: ".count).dropLast(" -->".count)
      #expect(lines[index + 1] == "```\(language)", "\(name): no code block after the marker")
      let end = try #require(
        lines[(index + 2)...].firstIndex(of: "```"), "\(name): the block does not end")
      let block = lines[(index + 2)..<end].joined(separator: "\n")
      let file = try String(
        contentsOf: Self.root.appendingPathComponent(String(name)), encoding: .utf8)
      #expect(
        block == file.trimmingCharacters(in: .newlines), "\(doc) shows \(name) as it is not")
      checked += 1
    }
    #expect(checked == blocks)
  }

  /// A path dependency on Retrace names the package: without `name:`, SwiftPM takes the
  /// package's name from the folder's, and `package: "Retrace"` fails in a checkout whose
  /// folder is named otherwise.
  @Test func everyPathDependencyOnRetraceInTheDocsNamesThePackage() throws {
    let fileManager = FileManager.default
    var docs = ["README.md"]
    for folder in ["docs", "Sources", "Examples", "Benchmarks"] {
      let enumerator = try #require(
        fileManager.enumerator(atPath: Self.root.appendingPathComponent(folder).path))
      while let relative = enumerator.nextObject() as? String {
        if relative.hasSuffix(".md") { docs.append(folder + "/" + relative) }
      }
    }
    var unnamed: [String] = []
    for doc in docs {
      let text = try String(contentsOf: Self.root.appendingPathComponent(doc), encoding: .utf8)
      for (number, line) in text.components(separatedBy: "\n").enumerated()
      where line.contains(".package(path:") {
        unnamed.append("\(doc):\(number + 1): \(line)")
      }
    }
    #expect(unnamed.isEmpty, "\(unnamed.joined(separator: "\n"))")
  }

  /// docs/SCALE.md's manifests parse as YAML and their shards add up
  /// (`scripts/ci/check-scale-manifests`).
  @Test func theScaleManifestsAreValidAndTheirShardsAddUp() throws {
    let script = Self.root.appendingPathComponent("scripts/ci/check-scale-manifests")
    let result = try CLI.run(script, [], in: Self.root)
    #expect(result.exitCode == 0, "\(result)")
  }

  /// The docs and comments say what is and refer to nothing outside the repository
  /// (`scripts/ci/check-docs`).
  @Test func theDocsReferToNothingOutsideTheRepositoryAndNumberNoStagesOfItsHistory() throws {
    let script = Self.root.appendingPathComponent("scripts/ci/check-docs")
    let result = try CLI.run(script, [], in: Self.root)
    #expect(result.exitCode == 0, "\(result)")
  }

  @Test func checkDocsFindsWhatItIsFor() throws {
    let workspace = try Workspace()
    try workspace.write(
      "A user's " + ["first", "session"].joined(separator: " ")
        + " and the next.\nThe recorder writes a chunk.\n", to: "fine.md")
    // Put together here, so that this file does not hold what it plants.
    let issue = ["the", "issue"].joined(separator: " ")
    let fifth = ["fifth", "session"].joined(separator: " ")
    let nine = ["session", "9"].joined(separator: " ")
    let shared = ["..", "shared", "DESIGN.md"].joined(separator: "/")
    try workspace.write("As \(issue) says, the \(fifth) made this 2x faster.\n", to: "notes.md")
    try workspace.write("// Measured in \(nine); see \(shared).\nlet x = 1\n", to: "code.swift")
    let script = Self.root.appendingPathComponent("scripts/ci/check-docs")
    let result = try CLI.run(
      script, [], in: workspace.directory,
      environment: ["CHECK_DOCS_ROOT": workspace.directory.path])
    #expect(result.exitCode == 1, "\(result)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.hasPrefix("notes.md:1: refers to an issue") })
    #expect(lines.contains { $0.hasPrefix("notes.md:1: numbers a stage") })
    #expect(lines.contains { $0.hasPrefix("code.swift:1: numbers a stage") })
    #expect(lines.contains { $0.hasPrefix("code.swift:1: refers to a directory outside") })
    #expect(!lines.contains { $0.hasPrefix("fine.md") })
  }
}
