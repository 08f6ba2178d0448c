import Foundation
import IdentifiedCollections
import Retrace
import RetraceExamples
import RetraceTesting
import Testing

@MainActor
@Suite struct MoviesTests {
  func holds(_ state: MoviesState) -> Bool {
    moviesDomain.invariant(named: "ratings-in-range")!.holds(state)
  }

  @Test func addRateAndDeleteChangeTheAveragePerGenre() async {
    let store = TestStore(initialState: MoviesState(), reducer: MoviesReducer())
    await store.send(.addMovie(id: 1, title: "Alien", year: 1979, genre: .horror)) {
      $0.movies = [Movie(id: 1, title: "Alien", year: 1979, genre: .horror)]
    }
    await store.send(.addMovie(id: 2, title: "Get Out", year: 2017, genre: .horror)) {
      $0.movies.append(Movie(id: 2, title: "Get Out", year: 2017, genre: .horror))
    }
    await store.send(.addMovie(id: 3, title: "Up", year: 2009, genre: .animation)) {
      $0.movies.append(Movie(id: 3, title: "Up", year: 2009, genre: .animation))
    }
    // Unrated movies do not count.
    #expect(store.state.ratingsByGenre.isEmpty)
    await store.send(.rate(id: 1, stars: 5)) { $0.movies[id: 1]?.stars = 5 }
    await store.send(.rate(id: 2, stars: 4)) { $0.movies[id: 2]?.stars = 4 }
    await store.send(.rate(id: 3, stars: 3)) { $0.movies[id: 3]?.stars = 3 }
    #expect(
      store.state.ratingsByGenre == [
        GenreRating(genre: .animation, average: 3, ratedMovies: 1),
        GenreRating(genre: .horror, average: 4.5, ratedMovies: 2),
      ])
    // A new rating replaces the old one.
    await store.send(.rate(id: 2, stars: 2)) { $0.movies[id: 2]?.stars = 2 }
    #expect(store.state.averageRating(of: .horror) == 3.5)
    await store.send(.delete(id: 1)) { $0.movies.remove(id: 1) }
    #expect(store.state.averageRating(of: .horror) == 2)
    #expect(store.state.averageRating(of: .drama) == nil)
    await store.finish()
  }

  @Test(arguments: [0, 6, -1, Int.max])
  func aRatingOutOfRangeIsRefused(stars: Int) async {
    let alien = Movie(id: 1, title: "Alien", year: 1979, genre: .horror, stars: 4)
    let store = TestStore(initialState: MoviesState(movies: [alien]), reducer: MoviesReducer())
    await store.send(.rate(id: 1, stars: stars))
    await store.finish()
  }

  @Test func anUnknownOrDuplicateIdentifierChangesNothing() async {
    let alien = Movie(id: 1, title: "Alien", year: 1979, genre: .horror)
    let store = TestStore(initialState: MoviesState(movies: [alien]), reducer: MoviesReducer())
    await store.send(.addMovie(id: 1, title: "Heat", year: 1995, genre: .action))
    await store.send(.rate(id: 2, stars: 3))
    await store.send(.delete(id: 2))
    await store.finish()
  }

  @Test func ratingsInRangeFailsOnAMovieRatedOutsideOneToFive() {
    func state(_ stars: Int?...) -> MoviesState {
      MoviesState(
        movies: IdentifiedArray(
          uniqueElements: stars.enumerated().map {
            Movie(
              id: $0.offset, title: "M\($0.offset)", year: 2000, genre: .drama, stars: $0.element)
          }))
    }
    #expect(holds(state()))
    #expect(holds(state(1, 5, nil, 3)))
    #expect(!holds(state(1, 0)))
    #expect(!holds(state(6)))
  }

  @Test func theWorkloadIsDeterministicPlaysEveryCaseAndTriesARatingOfZero() {
    let (actions, final) = moviesDomain.generate(count: 1_000, seed: 5)
    #expect(moviesDomain.generate(count: 1_000, seed: 5).actions == actions)
    #expect(moviesDomain.generate(count: 1_000, seed: 6).actions != actions)
    #expect(Set(actions.map { actionCaseName(of: $0) }) == Set(moviesDomain.actionCases))
    #expect(actions.contains { if case .rate(_, 0) = $0 { true } else { false } })
    #expect(holds(final))
    // The averages agree with the ratings, genre by genre.
    #expect(!final.ratingsByGenre.isEmpty)
    for rating in final.ratingsByGenre {
      let stars = final.movies.filter { $0.genre == rating.genre }.compactMap(\.stars)
      #expect(rating.ratedMovies == stars.count)
      #expect(rating.average == Double(stars.reduce(0, +)) / Double(stars.count))
    }
  }

  @Test func actionsEncodeAsTheDocumentedJSON() throws {
    let json = #"{"addMovie":{"id":3,"title":"Alien","year":1979,"genre":"horror"}}"#
    let action = MoviesAction.addMovie(id: 3, title: "Alien", year: 1979, genre: .horror)
    #expect(try JSONDecoder().decode(MoviesAction.self, from: Data(json.utf8)) == action)
    #expect(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(action)) as? NSDictionary
        == JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
  }
}
