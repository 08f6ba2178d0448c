// A thin SwiftUI adapter. SwiftUI exists only on Apple platforms, so this file is compiled
// there only; it cannot be built or tested on Linux, where the rest of the package is
// developed. Keep it small: everything it does goes through ordinary navigation actions.
#if canImport(SwiftUI)
  import Retrace
  import SwiftUI

  extension Store {
    /// A binding for `NavigationStack(path:)`, driven by the store's navigation state.
    ///
    /// The binding's value is the top layer's stack without its root (the root is the
    /// `NavigationStack`'s root view). When SwiftUI changes it (a back button, a swipe, a
    /// `NavigationLink(value:)`), the binding sends the matching navigation action: `pop`
    /// or `push` for one step, `popToRoot` for an empty path, and `setPath` for anything
    /// else, so the change is recorded and checked by the flow rules like any other. A
    /// refused change leaves the store's state as it was, and the view follows the state.
    ///
    /// ```swift
    /// NavigationStack(path: store.navigationPath(\.navigation, send: { .navigation(action: $0) })) {
    ///   PostListView(store: store)
    ///     .navigationDestination(for: PostsRoute.self) { route in DetailView(route: route) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - navigation: Where the navigation state lives in the store's state.
    ///   - embed: Wraps a navigation action into the store's action.
    /// - Returns: The binding.
    public func navigationPath<Route: Routable>(
      _ navigation: KeyPath<State, NavigationState<Route>> & Sendable,
      send embed: @escaping @Sendable (NavigationAction<Route>) -> Action
    ) -> Binding<[Route]> {
      Binding(
        get: {
          MainActor.assumeIsolated {
            Array(self.state[keyPath: navigation].currentStack.dropFirst())
          }
        },
        set: { newPath in
          MainActor.assumeIsolated {
            let current = self.state[keyPath: navigation]
            let stack = current.currentStack
            let oldPath = Array(stack.dropFirst())
            if newPath == oldPath { return }
            if newPath.isEmpty {
              self.send(embed(.popToRoot))
            } else if newPath.count + 1 == oldPath.count && oldPath.starts(with: newPath) {
              self.send(embed(.pop))
            } else if newPath.count == oldPath.count + 1 && newPath.starts(with: oldPath) {
              self.send(embed(.push(route: newPath[newPath.count - 1])))
            } else {
              var path = current.path
              if path.presentations.isEmpty {
                path.stack = [stack[0]] + newPath
              } else {
                path.presentations[path.presentations.count - 1].stack = [stack[0]] + newPath
              }
              self.send(embed(.setPath(path: path)))
            }
          }
        }
      )
    }

    /// A binding for `TabView(selection:)`: the selected tab's name, changed with
    /// ``NavigationAction/selectTab(tab:)``.
    ///
    /// - Parameters:
    ///   - navigation: Where the navigation state lives in the store's state.
    ///   - embed: Wraps a navigation action into the store's action.
    /// - Returns: The binding.
    public func selectedTab<Route: Routable>(
      _ navigation: KeyPath<State, NavigationState<Route>> & Sendable,
      send embed: @escaping @Sendable (NavigationAction<Route>) -> Action
    ) -> Binding<String> {
      Binding(
        get: { MainActor.assumeIsolated { self.state[keyPath: navigation].selectedTab } },
        set: { tab in MainActor.assumeIsolated { self.send(embed(.selectTab(tab: tab))) } }
      )
    }
  }
#endif
