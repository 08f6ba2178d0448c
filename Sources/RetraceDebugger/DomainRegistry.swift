import Retrace

/// The domains a debugger knows, by name.
///
/// A trace names its domain in its header; the registry finds the `Domain` (reducer,
/// invariants, workload) to replay it with. An app registers its own domains to build its
/// own debugger:
///
/// ```swift
/// let registry = DomainRegistry([counterDomain, bankingDomain])
/// print(registry.names)
/// print(try registry.domain(named: "banking").summary)
/// ```
///
/// ```
/// ["counter", "banking"]
/// Accounts with an opening deposit, transactions and an overdraft penalty.
/// ```
public struct DomainRegistry: Sendable {
  /// The registered domains, in the order they were given.
  public let domains: [any Domain]

  /// Creates a registry.
  ///
  /// - Parameter domains: The domains; their names must be unique.
  public init(_ domains: [any Domain]) {
    precondition(
      Set(domains.map(\.name)).count == domains.count,
      "domain names must be unique: \(domains.map(\.name))")
    self.domains = domains
  }

  /// Checks what the compiler cannot: that every action case a domain's workload makes is
  /// among its `Domain.actionCases` (a hand-written list of names can drift from the
  /// enum; `DomainDefinition.init(name:summary:actionSchemaVersion:initialState:reducer:sampleActions:invariants:workload:upcaster:legacyEncoder:redaction:displayFormats:)`
  /// derives it instead), and that no name is listed twice. `RetraceCommand` runs it at
  /// startup.
  ///
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/unknownActionCase``) naming the domain
  ///   and the case.
  public func check() throws(DebuggerError) {
    for domain in domains {
      try Self.check(domain)
    }
  }

  private static func check<D: Domain>(_ domain: D) throws(DebuggerError) {
    let listed = domain.actionCases
    if let twice = listed.first(where: { name in listed.filter { $0 == name }.count > 1 }) {
      throw DebuggerError(
        .unknownActionCase, "domain \(domain.name) lists action case '\(twice)' twice")
    }
    guard domain.workload != nil else { return }
    for action in domain.generate(count: 256, seed: 1).actions {
      let name = actionCaseName(of: action)
      guard listed.contains(name) else {
        throw DebuggerError(
          .unknownActionCase,
          "domain \(domain.name): its workload makes action case '\(name)', which its actionCases do not list ("
            + listed.joined(separator: ", ") + ")")
      }
    }
  }

  /// The registered domains' names, in order.
  public var names: [String] { domains.map(\.name) }

  /// The domain called `name`.
  ///
  /// - Parameter name: A domain's name, such as `banking`.
  /// - Returns: The domain.
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/unknownDomain``) that lists the
  ///   registered domains.
  public func domain(named name: String) throws(DebuggerError) -> any Domain {
    guard let domain = domains.first(where: { $0.name == name }) else {
      throw DebuggerError(
        .unknownDomain,
        "unknown domain '\(name)'; known: "
          + (names.isEmpty ? "none" : names.joined(separator: ", ")))
    }
    return domain
  }

  /// A registry with `domain` added, or put in place of the registered domain of the same
  /// name: how a test replays traces with a changed reducer.
  ///
  /// - Parameter domain: The domain to add.
  /// - Returns: The new registry.
  public func replacing(_ domain: any Domain) -> DomainRegistry {
    var domains = self.domains
    if let index = domains.firstIndex(where: { $0.name == domain.name }) {
      domains[index] = domain
    } else {
      domains.append(domain)
    }
    return DomainRegistry(domains)
  }
}
