extension Store where Action: BindableAction, Action.State == State {
  /// A declared bindable field of the state, read and written through the store: reading it
  /// observes that field only, as `store.count` does for any field; writing it
  /// sends `.binding(.set(keyPath, newValue))`, one recorded action.
  ///
  /// ```swift
  /// store.title = "Groceries"   // sends .binding(.set(\.title, "Groceries"))
  /// ```
  ///
  /// In SwiftUI this is what `$store.title` binds to, with the store held in `@Bindable`,
  /// as in TCA:
  ///
  /// ```swift
  /// @Bindable var store: Store<NoteForm, NoteFormAction>
  /// var body: some View { TextField("Title", text: $store.title) }
  /// ```
  ///
  /// Writing a field that `State.bindings` does not declare is reported as
  /// ``BindingAction/set(_:_:fileID:filePath:line:column:)`` reports it.
  @inlinable
  public subscript<Value: Codable & Equatable & Sendable>(
    dynamicMember keyPath: WritableKeyPath<State, Value> & Sendable
  ) -> Value {
    get { self[dynamicMember: keyPath as KeyPath<State, Value>] }
    set { send(.binding(.set(keyPath, newValue))) }
  }
}
