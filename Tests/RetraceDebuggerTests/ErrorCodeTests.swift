import RetraceDebugger
import RetraceLog
import Testing

/// Error codes are structs: they compare, hash and print by name, and one condition has one
/// name in `TraceError` and `DebuggerError`.
@Suite struct ErrorCodeTests {
  @Test func aCodePrintsItsNameAndComparesByIt() {
    #expect(TraceError.Code.outOfRange.description == "outOfRange")
    #expect(DebuggerError.Code.wrongDomain.description == "wrongDomain")
    #expect(TraceError(.truncated, "ends early").code == .truncated)
    #expect(TraceError.Code.truncated != .corrupted)
  }

  @Test func everyDebuggerCodeIsDistinct() {
    let codes = DebuggerError.Code.allCases
    #expect(codes.count == 6)
    #expect(Set(codes).count == codes.count)
    #expect(codes.map(\.description).contains("outOfRange"))
  }

  /// An app's switch over a code compiles only with a `default`, so a new code breaks
  /// nothing.
  @Test func aSwitchTakesADefault() {
    func kind(_ code: TraceError.Code) -> String {
      switch code {
      case .truncated, .corrupted: "damaged"
      default: "other"
      }
    }
    #expect(kind(.corrupted) == "damaged")
    #expect(kind(.notFound) == "other")
  }

  @available(*, deprecated, message: "checks the deprecated names")
  @Test func theDeprecatedNamesAreTheSameCodes() {
    #expect(DebuggerError.Code.domainMismatch == .wrongDomain)
    #expect(DebuggerError.Code(rawValue: "domainMismatch") == .wrongDomain)
    #expect(TraceError.Code(rawValue: "encrypted") == .encrypted)
    #expect(TraceError.Code.encrypted.rawValue == "encrypted")
    #expect(TraceError.Code(rawValue: "nope") == nil)
  }
}
