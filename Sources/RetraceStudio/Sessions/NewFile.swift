import Foundation

/// The file names the Studio writes under: an upload and a live session's recording never
/// overwrite a file, theirs or another's.
enum NewFile {
  /// How many names are tried: `stem.suffix`, then `stem-2.suffix` … `stem-10000.suffix`.
  static let attempts = 10_000

  /// Creates the first of `stem.suffix`, `stem-2.suffix`, … in `directory` that no file has,
  /// with `create`, and returns its path; `nil` when every name is taken.
  ///
  /// - Parameter create: Creates the file at the path it is given, exclusively: `false` when
  ///   a file is there already; throws when it cannot be created for another reason.
  static func create<E: Error>(
    _ stem: String, suffix: String, in directory: String, with create: (String) throws(E) -> Bool
  ) throws(E) -> String? {
    for number in 1...attempts {
      let name = number == 1 ? stem + suffix : "\(stem)-\(number)\(suffix)"
      let path = (directory as NSString).appendingPathComponent(name)
      if try create(path) { return path }
    }
    return nil
  }
}
