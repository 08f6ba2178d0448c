/// A list of objects that can be walked without touching their reference counts: the
/// store's subscribers and recorders, called after every action.
///
/// A loop over an array of objects (or of closures) retains and releases each element,
/// two atomic operations that cost more than calling a small callback. This list keeps the
/// objects alive in its entries and walks unretained references to them, each borrowed
/// for the duration of its call.
@usableFromInline
struct UnretainedList<Element: AnyObject> {
  /// Each object, kept alive by `owner`, with an unretained reference to it.
  @usableFromInline
  struct Entry {
    @usableFromInline let owner: Element
    @usableFromInline let reference: Unmanaged<Element>

    @usableFromInline
    init(_ owner: Element) {
      self.owner = owner
      self.reference = Unmanaged.passUnretained(owner)
    }
  }

  @usableFromInline var entries: [Entry] = []

  @usableFromInline
  init() {}

  @inlinable
  var isEmpty: Bool { entries.isEmpty }

  @inlinable
  mutating func append(_ element: Element) {
    entries.append(Entry(element))
  }

  @inlinable
  mutating func removeAll(where shouldRemove: (Element) -> Bool) {
    entries.removeAll { shouldRemove($0.owner) }
  }

  @inlinable
  func contains(where predicate: (Element) -> Bool) -> Bool {
    entries.contains { predicate($0.owner) }
  }

  /// Calls `body` with each element, in order. The elements stay alive until it returns,
  /// even if `body` changes the list it was called on: it walks a copy of the array, one
  /// retain, and reads only the unretained references from it.
  @inlinable
  func forEach(_ body: (Element) -> Void) {
    let entries = self.entries
    entries.withUnsafeBufferPointer { buffer in
      for index in buffer.indices {
        withBorrowedReference(buffer[index].reference, body)
      }
    }
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
