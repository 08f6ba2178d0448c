import Retrace

/// What `retrace check` may send in a settings state: a toggle of each of the six switches
/// the settings screen shows (the workload's).
///
/// Each switch is unset, on or off (a toggled switch is stored, even when off), so the space
/// is 3⁶ = 729 states, searched completely in twelve steps.
public enum SettingsExploration {
  /// The actions that may be sent in `state`: one toggle a switch.
  @Sendable public static func actions(in state: SettingsState) -> [SettingsAction] {
    settingsKeys.map { .toggle(key: $0) }
  }
}

/// Named conditions `retrace check --reach` can search for in a settings state.
public let settingsPredicates: [StatePredicate<SettingsState>] = [
  StatePredicate("dark-mode", "The day/night switch is on.") { $0["darkMode"] },
  StatePredicate("all-on", "Every switch is on.") { state in
    settingsKeys.allSatisfy { state[$0] }
  },
]
