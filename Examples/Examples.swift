import Retrace

/// The example domains, as the `retrace` CLI knows them.
public enum Examples {
  /// Every example domain: counter, banking, settings, posts, registration, dishes, movies,
  /// stocks, package and notes.
  public static let domains: [any Domain] = [
    counterDomain, bankingDomain, settingsDomain, postsDomain, registrationDomain, dishesDomain,
    moviesDomain, stocksDomain, packageDomain, notesDomain,
  ]

  /// The example domain called `name`, if there is one.
  public static func domain(named name: String) -> (any Domain)? {
    domains.first { $0.name == name }
  }
}
