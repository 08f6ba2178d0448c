/// Why a navigation or screen action was refused, kept in ``NavigationState/lastRefusal``.
///
/// A refused action leaves the navigation unchanged; the refusal is part of the state, so a
/// trace, a snapshot, a diff and the debugger all show it, and a test can assert it:
///
/// ```swift
/// store.send(.navigation(.push(route: .settings)))
/// store.state.navigation.lastRefusal?.reason   // .pushNotAllowed
/// store.state.navigation.lastRefusal?.message
/// // "push from postList to settings refused: no rule lets postList push settings"
/// ```
///
/// It encodes as a small JSON object:
/// `{"action":"push","reason":"pushNotAllowed","from":{"postList":{}},"to":{"settings":{}}}`.
public struct NavigationRefusal<Route: Routable>: Hashable, Codable, Sendable {
  /// The name of the refused action: a ``NavigationAction/name`` such as `push`, or the name
  /// a screen action was given in ``ScreenStates/update(_:in:action:_:)``.
  public var action: String
  /// The rule or the structural reason that refused it.
  public var reason: Reason
  /// The route the action started from (usually the visible route), if there is one.
  public var from: Route?
  /// The route the action would have led to, if there is one.
  public var to: Route?
  /// The tab the action named, for tab selections and paths.
  public var tab: String?

  /// Creates a refusal.
  ///
  /// - Parameters:
  ///   - action: The name of the refused action.
  ///   - reason: Why it was refused.
  ///   - from: The route it started from.
  ///   - to: The route it would have led to.
  ///   - tab: The tab it named.
  @inlinable
  public init(
    action: String, reason: Reason, from: Route? = nil, to: Route? = nil, tab: String? = nil
  ) {
    self.action = action
    self.reason = reason
    self.from = from
    self.to = to
    self.tab = tab
  }

  /// Why an action was refused.
  ///
  /// The first four are flow rules (``FlowRules``); the others are structural: they hold
  /// even when the rules allow everything.
  public enum Reason: String, Hashable, Codable, Sendable, CaseIterable {
    /// No rule lets the visible route push the route.
    case pushNotAllowed
    /// No rule lets the visible route present the route.
    case presentNotAllowed
    /// A path does not start at a root (or at its tab's root).
    case notARoot
    /// The tab is not declared by the rules, or the state has no such tab.
    case unknownTab
    /// A pop at the root of a stack; a presentation is dismissed, not popped.
    case cannotPopRoot
    /// `popTo` named a route that is not on the top layer's stack.
    case notOnStack
    /// A dismissal with nothing presented.
    case nothingPresented
    /// A tab selection while a presentation covers the tab bar.
    case presentationActive
    /// A path, or a presentation inside it, with an empty stack.
    case emptyStack
    /// An action addressed to a screen whose route is on no stack.
    case screenNotOnStack
  }

  /// A one-line explanation that names the action, the routes and the rule.
  public var message: String {
    let fromName = from?.name ?? "?"
    let toName = to?.name ?? "?"
    let head: String
    switch (from, to) {
    case (.some, .some): head = "\(action) from \(fromName) to \(toName) refused"
    case (.some, .none): head = "\(action) at \(fromName) refused"
    case (.none, .some): head = "\(action) to \(toName) refused"
    case (.none, .none): head = "\(action) refused"
    }
    let why: String
    switch reason {
    case .pushNotAllowed: why = "no rule lets \(fromName) push \(toName)"
    case .presentNotAllowed: why = "no rule lets \(fromName) present \(toName)"
    case .notARoot:
      if let tab {
        why = "\(toName) is not the root of tab \(tab)"
      } else {
        why = "\(toName) is not a root"
      }
    case .unknownTab: why = "there is no tab \(tab ?? "?")"
    case .cannotPopRoot: why = "\(fromName) is the root of its stack"
    case .notOnStack: why = "\(toName) is not on the stack"
    case .nothingPresented: why = "nothing is presented"
    case .presentationActive: why = "a presentation covers the tab bar"
    case .emptyStack: why = "a stack in the path is empty"
    case .screenNotOnStack: why = "no \(toName) screen is on a stack"
    }
    return "\(head): \(why)"
  }
}

extension NavigationRefusal: CustomStringConvertible {
  /// The refusal's ``message``.
  public var description: String { message }
}
