import Retrace

/// The movies example's reducer.
///
/// It is the one gate for ratings: a `rate` outside ``MoviesState/stars`` (which a view's
/// star control never sends, but a hand-edited or imported session, or another client, may)
/// leaves the state unchanged, so `ratings-in-range` holds whatever the actions say.
public struct MoviesReducer: Reducer, Sendable {
  /// Creates the reducer.
  public init() {}

  /// Applies a movies action.
  ///
  /// - Parameters:
  ///   - state: The movies state.
  ///   - action: The action.
  /// - Returns: No effect.
  public func reduce(into state: inout MoviesState, action: MoviesAction) -> Effect<MoviesAction> {
    switch action {
    case .addMovie(let id, let title, let year, let genre):
      if state.movies[id: id] == nil {
        state.movies.append(Movie(id: id, title: title, year: year, genre: genre))
      }
    case .rate(let id, let stars):
      if MoviesState.stars.contains(stars) { state.movies[id: id]?.stars = stars }
    case .delete(let id):
      state.movies.remove(id: id)
    }
    return .none
  }
}
