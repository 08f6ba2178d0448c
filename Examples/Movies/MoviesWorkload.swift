import Retrace

/// Realistic sessions for the movies domain.
///
/// The generator plays a user keeping a watch list: it adds movies from a list of well-known
/// ones, rates what it has (good movies get more stars), changes its mind about a rating,
/// deletes some, and rarely drags the star control past its first star, a rating of 0 that
/// the reducer refuses.
public enum MoviesWorkload {
  /// The workload of ``moviesDomain``.
  public static let workload = Workload<MoviesState, MoviesAction> { state, step, random in
    next(state, step: step, random: &random)
  }

  /// Movies the user adds: title, year, genre, and the stars the user tends to give it.
  static let catalogue: [(title: String, year: Int, genre: Genre, stars: Int)] = [
    ("Alien", 1979, .horror, 5), ("The Shining", 1980, .horror, 4), ("Get Out", 2017, .horror, 4),
    ("Hereditary", 2018, .horror, 3), ("Spirited Away", 2001, .animation, 5),
    ("Toy Story", 1995, .animation, 4), ("Shrek the Third", 2007, .animation, 2),
    ("Up", 2009, .animation, 4), ("Some Like It Hot", 1959, .comedy, 4),
    ("Groundhog Day", 1993, .comedy, 5), ("Airplane!", 1980, .comedy, 4),
    ("Grown Ups 2", 2013, .comedy, 1), ("Mad Max: Fury Road", 2015, .action, 5),
    ("Die Hard", 1988, .action, 4), ("Speed 2: Cruise Control", 1997, .action, 1),
    ("Heat", 1995, .action, 4), ("The Godfather", 1972, .drama, 5),
    ("Moonlight", 2016, .drama, 4), ("Parasite", 2019, .drama, 5),
    ("The Room", 2003, .drama, 1), ("Blade Runner", 1982, .scienceFiction, 5),
    ("Arrival", 2016, .scienceFiction, 4), ("Interstellar", 2014, .scienceFiction, 4),
    ("Battlefield Earth", 2000, .scienceFiction, 1), ("Free Solo", 2018, .documentary, 4),
    ("Hoop Dreams", 1994, .documentary, 5), ("My Octopus Teacher", 2020, .documentary, 3),
  ]

  static func next(_ state: MoviesState, step: Int, random: inout SeededRandom) -> MoviesAction {
    let roll = Int.random(in: 0..<100, using: &random)
    let unrated = state.movies.filter { $0.stars == nil }
    if state.movies.count < 4 || (roll < 20 && state.movies.count < 40) {
      let pick = catalogue.randomElement(using: &random)!
      // The step makes a new identifier for every movie ever added.
      return .addMovie(id: step + 1, title: pick.title, year: pick.year, genre: pick.genre)
    }
    switch roll {
    case 20..<60 where !unrated.isEmpty:
      let movie = unrated.randomElement(using: &random)!
      return .rate(id: movie.id, stars: stars(for: movie, random: &random))
    case 80..<98:
      return .delete(id: state.movies.randomElement(using: &random)!.id)
    case 98..<100:
      // The star control dragged past its first star.
      return .rate(id: state.movies.randomElement(using: &random)!.id, stars: 0)
    default:
      // A change of mind about any movie, rated or not.
      let movie = state.movies.randomElement(using: &random)!
      return .rate(id: movie.id, stars: stars(for: movie, random: &random))
    }
  }

  /// The stars the user gives `movie`: its usual rating, give or take one.
  private static func stars(for movie: Movie, random: inout SeededRandom) -> Int {
    let usual = catalogue.first { $0.title == movie.title }?.stars ?? 3
    return min(5, max(1, usual + Int.random(in: -1...1, using: &random)))
  }
}
