extension NavigationState {
  /// Every route on every stack of a ``NavigationState``: the tabs' in tab order, then the
  /// presentations', bottom first.
  ///
  /// A view of the state's stacks that builds no array: ``NavigationState/routes`` returns
  /// it, and iterating it reads the stacks in place. Inlinable, so that an app's code runs it
  /// compiled for its own routes (see W7a and W7i in Benchmarks/README.md).
  public struct Routes: Sequence {
    @usableFromInline let tabs: [NavigationTab<Route>]
    @usableFromInline let presentations: [Presentation<Route>]

    @inlinable
    init(tabs: [NavigationTab<Route>], presentations: [Presentation<Route>]) {
      self.tabs = tabs
      self.presentations = presentations
    }

    /// Returns an iterator over the routes.
    @inlinable
    public func makeIterator() -> Iterator {
      Iterator(tabs: tabs, presentations: presentations)
    }

    /// The number of routes on every stack.
    @inlinable
    public var count: Int {
      var count = 0
      for tab in tabs { count += tab.stack.count }
      for presentation in presentations { count += presentation.stack.count }
      return count
    }

    /// The number of routes on every stack: each stack holds at least its root.
    @inlinable
    public var underestimatedCount: Int { tabs.count + presentations.count }

    /// Iterates the routes of ``NavigationState/Routes``, one stack after the other.
    public struct Iterator: IteratorProtocol {
      @usableFromInline let tabs: [NavigationTab<Route>]
      @usableFromInline let presentations: [Presentation<Route>]
      // The layer (tabs first, then presentations) and the position on its stack.
      @usableFromInline var layer = 0
      @usableFromInline var position = 0

      @inlinable
      init(tabs: [NavigationTab<Route>], presentations: [Presentation<Route>]) {
        self.tabs = tabs
        self.presentations = presentations
      }

      /// The next route, or `nil` after the last.
      @inlinable
      public mutating func next() -> Route? {
        while layer < tabs.count {
          if position < tabs[layer].stack.count {
            position += 1
            return tabs[layer].stack[position - 1]
          }
          layer += 1
          position = 0
        }
        while layer - tabs.count < presentations.count {
          let index = layer - tabs.count
          if position < presentations[index].stack.count {
            position += 1
            return presentations[index].stack[position - 1]
          }
          layer += 1
          position = 0
        }
        return nil
      }
    }
  }
}

extension NavigationState.Routes: Sendable {}
extension NavigationState.Routes.Iterator: Sendable {}
