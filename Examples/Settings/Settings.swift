import Retrace

/// The settings example's state: named switches, such as the day/night toggle.
public struct SettingsState: Codable, Hashable, Sendable {
  /// The switches by name; a name that is absent is off.
  public var toggles: [String: Bool]

  /// Creates a settings state.
  ///
  /// - Parameter toggles: The switches that are already set.
  public init(toggles: [String: Bool] = [:]) {
    self.toggles = toggles
  }

  /// Whether the switch `key` is on.
  public subscript(key: String) -> Bool {
    toggles[key] ?? false
  }
}

/// The settings example's actions: `{"toggle":{"key":"darkMode"}}`.
public enum SettingsAction: Codable, Equatable, Sendable {
  /// Flips the switch called `key` (an absent switch starts off, so it turns on).
  case toggle(key: String)
}

/// The settings example's reducer.
public struct SettingsReducer: Reducer, Sendable {
  /// Creates the reducer.
  public init() {}

  /// Applies a settings action.
  public func reduce(into state: inout SettingsState, action: SettingsAction) -> Effect<
    SettingsAction
  > {
    switch action {
    case .toggle(let key):
      state.toggles[key, default: false].toggle()
    }
    return .none
  }
}

/// The switch names the settings workload uses.
let settingsKeys = [
  "darkMode", "notifications", "biometrics", "analytics", "largeText", "autoplay",
]

/// The `settings` domain: named switches, after the seed's day/night toggle.
public let settingsDomain = DomainDefinition(
  name: "settings",
  summary: "Named on/off switches, such as the day/night toggle.",
  initialState: SettingsState(),
  reducer: SettingsReducer(),
  actionCases: ["toggle"],
  workload: Workload { _, _, random in
    // darkMode is flipped far more often than the rest, as in the seed app.
    if Int.random(in: 0..<100, using: &random) < 60 { return .toggle(key: "darkMode") }
    return .toggle(key: settingsKeys.randomElement(using: &random)!)
  },
  explorationActions: SettingsExploration.actions,
  predicates: settingsPredicates,
  statesHashEveryField: true
)
