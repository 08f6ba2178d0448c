import Testing

@testable import Retrace

/// What makes two cancellation identifiers the same: their type and their value, as in TCA.
struct EffectIDTests {
  private class Base: Hashable, @unchecked Sendable {
    let value: Int
    init(_ value: Int) { self.value = value }
    static func == (lhs: Base, rhs: Base) -> Bool { lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
  }
  private final class Derived: Base, @unchecked Sendable {}
  private enum CancelID { case search, timer }

  @Test func theSameValueOfTheSameTypeIsTheSameIdentifier() {
    #expect(EffectID("search") == EffectID("search"))
    #expect(EffectID(CancelID.search) == EffectID(CancelID.search))
    #expect(EffectID(CancelID.search) != EffectID(CancelID.timer))
    #expect(Set([EffectID("search"), EffectID("search"), EffectID(CancelID.search)]).count == 2)
  }

  /// `AnyHashable` makes `1 as Int` and `1 as Int64` equal; identifiers of two types never
  /// are, so a cancel of one type never stops another's effect.
  @Test func equalValuesOfDifferentTypesAreDifferentIdentifiers() {
    #expect(EffectID(1) != EffectID(Int64(1)))
    #expect(EffectID(Int64(1)) != EffectID(1))
    #expect(Set([EffectID(1), EffectID(Int64(1)), EffectID(1.0)]).count == 3)
  }

  /// A class and its subclass with equal values: not the same identifier, from either side,
  /// so that equality stays symmetric and agrees with the hash.
  @Test func aSubclassIsNotItsBaseClass() {
    #expect(EffectID(Base(1)) == EffectID(Base(1)))
    #expect(EffectID(Base(1)) != EffectID(Derived(1) as Base))
    #expect(EffectID(Derived(1) as Base) != EffectID(Base(1)))
    #expect(EffectID(Derived(1) as Base) == EffectID(Derived(1) as Base))
  }
}
