import Retrace

/// The package example's reducer: the form's edits and the outside model's changes both
/// change the parcel, and every change refreshes the summary.
public struct PackageReducer: Reducer, Sendable {
  /// Creates the reducer.
  public init() {}

  /// Applies a package action.
  ///
  /// - Parameters:
  ///   - state: The parcel screen's state.
  ///   - action: The action.
  /// - Returns: No effect.
  public func reduce(into state: inout PackageState, action: PackageAction) -> Effect<
    PackageAction
  > {
    switch action {
    case .edit(let field, let value):
      state.parcel.recipient[field] = value
    case .addItem(let name):
      state.parcel.contents.append(name)
    case .removeItem(let index):
      guard state.parcel.contents.indices.contains(index) else { return .none }
      state.parcel.contents.remove(at: index)
    case .externalChange(let parcel):
      state.parcel = parcel
    }
    state.summary = state.parcel.summary
    return .none
  }
}
