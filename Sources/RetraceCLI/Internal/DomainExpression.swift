import ArgumentParser

/// The `--domain-expression` of `shrink --emit-test` and `check --emit-test`: Swift code the
/// emitted test uses as it is, so it must be one line of printable ASCII (a newline would
/// end the expression and start declarations of its own) and not empty.
enum DomainExpression {
  /// Throws a usage error unless `expression` is absent or one line of printable ASCII.
  static func validate(_ expression: String?) throws {
    guard let expression else { return }
    guard !expression.allSatisfy({ $0 == " " }) else {
      throw ValidationError(
        "--domain-expression is empty: give a Swift expression, such as counterDomain.")
    }
    guard expression.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else {
      throw ValidationError(
        "--domain-expression must be one line of printable ASCII: it goes into the test as it is.")
    }
  }
}
