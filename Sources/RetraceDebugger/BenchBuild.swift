import Foundation

/// What a benchmark's figures owe to the build: `retrace bench` and the Studio's bench say
/// the same of a debug build.
public enum BenchBuild {
  /// Whether this tool (the module that holds the commands, and so the reducers' callers)
  /// was built without optimization, which makes every figure many times slower.
  public static var isDebug: Bool {
    #if DEBUG
      return true
    #else
      return false
    #endif
  }

  /// The warning a debug build's figures carry, or `nil` for an optimized build.
  public static var warning: String? {
    isDebug
      ? "this is a debug build (not optimized): its figures are many times a release build's; build with `swift build -c release` to measure"
      : nil
  }

  /// `report` as `retrace bench --json` prints it: its keys, `version` (1), `debugBuild`, and `warning` in a
  /// debug build.
  ///
  /// - Throws: An `EncodingError` when the report does not encode.
  public static func json(_ report: BenchReport) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(Built(report: report)), as: UTF8.self)
  }

  private struct Built: Encodable {
    var report: BenchReport

    private enum CodingKeys: String, CodingKey { case version, debugBuild, warning }

    func encode(to encoder: any Encoder) throws {
      // Into the same object as the report's own keys.
      try report.encode(to: encoder)
      var container = encoder.container(keyedBy: CodingKeys.self)
      // The version of this shape, as every report has (1 until a key is removed or renamed).
      try container.encode(1, forKey: .version)
      try container.encode(BenchBuild.isDebug, forKey: .debugBuild)
      try container.encodeIfPresent(BenchBuild.warning, forKey: .warning)
    }
  }
}
