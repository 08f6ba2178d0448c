import IdentifiedCollections

/// A movie's genre.
public enum Genre: String, Codable, CaseIterable, Hashable, Sendable {
  /// Action.
  case action
  /// Animation.
  case animation
  /// Comedy.
  case comedy
  /// Documentary.
  case documentary
  /// Drama.
  case drama
  /// Horror.
  case horror
  /// Science fiction.
  case scienceFiction
}

/// A movie on the user's list, with the user's rating.
public struct Movie: Codable, Hashable, Sendable, Identifiable {
  /// The movie's identifier, which actions name it by.
  public var id: Int
  /// The movie's title.
  public var title: String
  /// The year it came out.
  public var year: Int
  /// Its genre.
  public var genre: Genre
  /// The user's rating in stars, from 1 to 5, or `nil` while it is not rated.
  public var stars: Int?

  /// Creates a movie.
  ///
  /// - Parameters:
  ///   - id: The movie's identifier.
  ///   - title: The movie's title.
  ///   - year: The year it came out.
  ///   - genre: Its genre.
  ///   - stars: The user's rating, if rated.
  public init(id: Int, title: String, year: Int, genre: Genre, stars: Int? = nil) {
    self.id = id
    self.title = title
    self.year = year
    self.genre = genre
    self.stars = stars
  }
}

/// The average rating of one genre's rated movies.
public struct GenreRating: Hashable, Sendable {
  /// The genre.
  public var genre: Genre
  /// The mean of its rated movies' stars.
  public var average: Double
  /// How many of its movies are rated.
  public var ratedMovies: Int

  /// Creates a genre's rating.
  ///
  /// - Parameters:
  ///   - genre: The genre.
  ///   - average: The mean of its rated movies' stars.
  ///   - ratedMovies: How many of its movies are rated.
  public init(genre: Genre, average: Double, ratedMovies: Int) {
    self.genre = genre
    self.average = average
    self.ratedMovies = ratedMovies
  }
}

/// The movies screen's state: the user's movies, in the order they were added. The average
/// rating per genre is computed from them.
public struct MoviesState: Codable, Hashable, Sendable {
  /// The ratings a movie can have.
  public static let stars = 1...5

  /// The movies, identified by their identifiers.
  public var movies: IdentifiedArrayOf<Movie>

  /// Creates a movies state.
  ///
  /// - Parameter movies: The movies on the list.
  public init(movies: IdentifiedArrayOf<Movie> = []) {
    self.movies = movies
  }

  /// The average rating of each genre that has a rated movie, in the order of
  /// ``Genre/allCases``; unrated movies do not count.
  public var ratingsByGenre: [GenreRating] {
    var totals: [Genre: (stars: Int, count: Int)] = [:]
    for movie in movies {
      guard let stars = movie.stars else { continue }
      totals[movie.genre, default: (0, 0)].stars += stars
      totals[movie.genre, default: (0, 0)].count += 1
    }
    return Genre.allCases.compactMap { genre in
      totals[genre].map {
        GenreRating(
          genre: genre, average: Double($0.stars) / Double($0.count), ratedMovies: $0.count)
      }
    }
  }

  /// The average rating of `genre`'s rated movies, or `nil` when none is rated.
  ///
  /// - Parameter genre: The genre.
  /// - Returns: The mean of its rated movies' stars.
  public func averageRating(of genre: Genre) -> Double? {
    ratingsByGenre.first { $0.genre == genre }?.average
  }
}
