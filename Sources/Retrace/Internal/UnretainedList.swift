/// A list of objects that can be walked without touching their reference counts: the
/// store's subscribers and recorders, called after every action.
///
/// A loop over an array of objects (or of closures) retains and releases each element,
/// two atomic operations that cost more than calling a small callback. This list keeps the
/// objects alive in `owners` and walks unretained references to them, each borrowed for
/// the duration of its call.
@usableFromInline
struct UnretainedList<Element: AnyObject> {
  @usableFromInline var owners: [Element] = []
  @usableFromInline var references: [Unmanaged<Element>] = []

  @usableFromInline
  init() {}

  @inlinable
  var isEmpty: Bool { owners.isEmpty }

  @inlinable
  mutating func append(_ element: Element) {
    owners.append(element)
    references.append(Unmanaged.passUnretained(element))
  }

  @inlinable
  mutating func removeAll(where shouldRemove: (Element) -> Bool) {
    owners.removeAll(where: shouldRemove)
    references = owners.map(Unmanaged.passUnretained)
  }

  @inlinable
  func contains(where predicate: (Element) -> Bool) -> Bool {
    owners.contains(where: predicate)
  }

  /// Calls `body` with each element, in order. The elements stay alive until it returns,
  /// even if `body` changes the list it was called on (it walks a copy).
  @inlinable
  func forEach(_ body: (Element) -> Void) {
    let owners = self.owners
    for reference in references {
      withBorrowedReference(reference, body)
    }
    withExtendedLifetime(owners) {}
  }
}

/// Calls `body` with the object `reference` points to, without retaining it: the caller
/// keeps the object alive.
///
/// A function of this module rather than `Unmanaged._withUnsafeGuaranteedRef` called
/// directly: a main-actor closure handed to the standard library (compiled in Swift 5 mode)
/// gets a run-time isolation check on every call, which would cost more than the callback.
@inlinable
func withBorrowedReference<Object: AnyObject, Result>(
  _ reference: Unmanaged<Object>, _ body: (Object) -> Result
) -> Result {
  reference._withUnsafeGuaranteedRef(body)
}
