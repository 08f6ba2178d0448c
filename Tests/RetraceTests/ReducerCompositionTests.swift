import IdentifiedCollections
import Retrace
import Testing

@Suite struct ReducerCompositionTests {
  let parent = Reduce<Parent, ParentAction> { state, action in
    switch action {
    case .tally: state.parentSaw.append("tally")
    case .item(let id, _):
      state.parentSaw.append("item \(id) value \(state.items[id: id]?.value ?? -1)")
    case .detail: state.parentSaw.append("detail \(state.detail?.value ?? -1)")
    case .note(let s): state.parentSaw.append(s)
    }
    return .none
  }

  @Test func combinedRunsBothInOrderOnTheSameState() {
    let first = Reduce<Tally, TallyAction> { state, _ in
      state.log.append("first saw \(state.total)")
      state.total += 1
      return .none
    }
    let second = Reduce<Tally, TallyAction> { state, _ in
      state.log.append("second saw \(state.total)")
      return .none
    }
    var state = Tally()
    _ = first.combined(with: second).reduce(into: &state, action: .add(0))
    #expect(state.log == ["first saw 0", "second saw 1"])
  }

  @Test func scopeRunsTheChildOnlyForItsActions() {
    let reducer = Scope(state: \Parent.tally, action: ParentAction.tallyCase, child: tallyReducer)
    var state = Parent()
    _ = reducer.reduce(into: &state, action: .tally(.add(5)))
    _ = reducer.reduce(into: &state, action: .note("ignored"))
    #expect(state.tally.total == 5)
    #expect(state.parentSaw.isEmpty)
  }

  @Test func forEachRunsTheElementFirstThenTheParent() {
    let reducer = parent.forEach(\.items, action: ParentAction.itemCase, element: itemReducer)
    var state = Parent(items: [Item(id: 1), Item(id: 2)])
    _ = reducer.reduce(into: &state, action: .item(id: 2, action: .bump))
    #expect(state.items[id: 2]?.value == 1)
    #expect(state.items[id: 1]?.value == 0)
    #expect(state.parentSaw == ["item 2 value 1"])
  }

  @Test func forEachLeavesElementsUnchangedForAnUnknownID() {
    let reducer = parent.forEach(\.items, action: ParentAction.itemCase, element: itemReducer)
    var state = Parent(items: [Item(id: 1)])
    _ = reducer.reduce(into: &state, action: .item(id: 9, action: .bump))
    #expect(state.items == [Item(id: 1)])
    #expect(state.parentSaw == ["item 9 value -1"])
  }

  @Test func ifLetRunsTheChildOnlyWhilePresent() {
    let reducer = parent.ifLet(\.detail, action: ParentAction.detailCase, then: itemReducer)
    var state = Parent()
    _ = reducer.reduce(into: &state, action: .detail(.bump))
    #expect(state.detail == nil)
    state.detail = Item(id: 7)
    _ = reducer.reduce(into: &state, action: .detail(.bump))
    #expect(state.detail?.value == 1)
    #expect(state.parentSaw == ["detail -1", "detail 1"])
  }

  @Test func childEffectsAreMappedIntoParentActions() async {
    let child = Reduce<Tally, TallyAction> { _, action in
      if case .add(let n) = action, n > 0 { return .send(.log("added \(n)")) }
      return .none
    }
    let reducer = Scope(state: \Parent.tally, action: ParentAction.tallyCase, child: child)
      .combined(
        with: Scope(state: \Parent.tally, action: ParentAction.tallyCase, child: tallyReducer))
    let store = await Store(initialState: Parent(), reducer: reducer)
    await store.send(.tally(.add(2)))
    #expect(await store.state.tally.log == ["added 2"])
    #expect(await store.state.tally.total == 2)
  }
}
