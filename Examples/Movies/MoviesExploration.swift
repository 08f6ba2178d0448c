import Retrace

/// What `retrace check` may send in a movies state: adding each of three movies not on the
/// list, rating a movie on it with 1, 3 or 5 stars or with 0 or 6 (which the star control
/// never sends but an imported session may; the reducer refuses them), and deleting one.
///
/// At most 18 actions a state. The lists of up to three movies, in any order, each unrated
/// or rated 1, 3 or 5, make about 500 states, searched completely in well under a second.
public enum MoviesExploration {
  /// The movies that may be added.
  public static let movies: [(id: Int, title: String, year: Int, genre: Genre)] = [
    (1, "Alien", 1979, .horror), (2, "Up", 2009, .animation), (3, "The Thing", 1982, .horror),
  ]

  /// The ratings that may be sent: three in range, and one on each side of it.
  public static let ratings = [0, 1, 3, 5, 6]

  /// The actions that may be sent in `state`.
  @Sendable public static func actions(in state: MoviesState) -> [MoviesAction] {
    var actions: [MoviesAction] = []
    for movie in movies {
      if state.movies[id: movie.id] == nil {
        actions.append(
          .addMovie(id: movie.id, title: movie.title, year: movie.year, genre: movie.genre))
      } else {
        for stars in ratings { actions.append(.rate(id: movie.id, stars: stars)) }
        actions.append(.delete(id: movie.id))
      }
    }
    return actions
  }
}

/// Named conditions `retrace check --reach` can search for in a movies state.
public let moviesPredicates: [StatePredicate<MoviesState>] = [
  StatePredicate("genre-average-four", "A genre's average rating is 4 stars.") {
    $0.ratingsByGenre.contains { $0.average == 4 }
  },
  StatePredicate("all-rated", "Three movies are on the list, all rated.") {
    $0.movies.count == 3 && $0.movies.allSatisfy { $0.stars != nil }
  },
]
