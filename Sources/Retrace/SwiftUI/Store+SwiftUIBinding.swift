// A thin SwiftUI adapter. SwiftUI exists only on Apple platforms, so this file is compiled
// there only; it cannot be built or tested on Linux, where the rest of the package is
// developed. Keep it small: everything it does goes through ordinary binding actions.
#if canImport(SwiftUI)
  import SwiftUI

  extension Store where Action: BindableAction, Action.State == State {
    /// A binding to a declared bindable field, for a view that holds the store without
    /// `@Bindable` (with it, write `$store.title`).
    ///
    /// Reading the binding reads the field as `store.title` does; setting it sends
    /// `.binding(.set(keyPath, newValue))`, recorded like any other action.
    ///
    /// ```swift
    /// Toggle("Pinned", isOn: store.binding(\.isPinned))
    /// ```
    ///
    /// - Parameter keyPath: A field declared in `State.bindings`.
    /// - Returns: The binding.
    public func binding<Value: Codable & Equatable & Sendable>(
      _ keyPath: WritableKeyPath<State, Value> & Sendable
    ) -> Binding<Value> {
      Binding(
        get: { MainActor.assumeIsolated { self[dynamicMember: keyPath as KeyPath<State, Value>] } },
        set: { value in MainActor.assumeIsolated { self.send(.binding(.set(keyPath, value))) } }
      )
    }
  }
#endif
