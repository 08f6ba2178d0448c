import Retrace

/// The `movies` domain: a list of movies the user adds, rates with 1 to 5 stars and
/// deletes, with the average rating per genre.
public let moviesDomain = DomainDefinition(
  name: "movies",
  summary: "Movies added, rated 1-5 stars and deleted, with the average rating per genre.",
  initialState: MoviesState(),
  reducer: MoviesReducer(),
  sampleActions: MoviesAction.samples,
  invariants: moviesInvariants,
  workload: MoviesWorkload.workload,
  explorationActions: MoviesExploration.actions,
  predicates: moviesPredicates,
  statesHashEveryField: true
)

/// The movies domain's invariants.
public let moviesInvariants: [Invariant<MoviesState>] = [
  Invariant("ratings-in-range", "Every rated movie has 1 to 5 stars.") {
    $0.movies.allSatisfy { movie in movie.stars.map(MoviesState.stars.contains) ?? true }
  }
]
