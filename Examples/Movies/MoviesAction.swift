/// The movies example's actions.
///
/// Encoded as Swift synthesizes them, for example
/// `{"addMovie":{"id":3,"title":"Alien","year":1979,"genre":"horror"}}` or
/// `{"rate":{"id":3,"stars":5}}`.
public enum MoviesAction: Codable, Equatable, Sendable {
  /// Adds an unrated movie at the end of the list; an identifier already on the list is
  /// ignored.
  case addMovie(id: Int, title: String, year: Int, genre: Genre)
  /// Rates a movie with 1 to 5 stars, replacing an earlier rating; other values are refused.
  case rate(id: Int, stars: Int)
  /// Deletes a movie, and with it its rating.
  case delete(id: Int)

  /// One action of each case, in the order tools list them.
  public static let samples: [MoviesAction] = [
    .addMovie(id: 0, title: "", year: 0, genre: .drama), .rate(id: 0, stars: 1),
    .delete(id: 0),
  ]
}
