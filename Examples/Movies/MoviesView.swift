// The movies screen in SwiftUI. SwiftUI exists only on Apple platforms, so this file is
// compiled there only; keep it a thin view: every change goes through an action.
#if canImport(SwiftUI)
  import Retrace
  import SwiftUI

  /// The movies screen: the movies with their star ratings, and the average per genre.
  public struct MoviesView: View {
    /// The store the screen reads and sends to.
    public let store: Store<MoviesState, MoviesAction>

    /// Creates the screen.
    ///
    /// - Parameter store: The store the screen reads and sends to.
    public init(store: Store<MoviesState, MoviesAction>) {
      self.store = store
    }

    /// The screen's content.
    public var body: some View {
      List {
        Section("Movies") {
          ForEach(store.movies) { movie in
            VStack(alignment: .leading) {
              Text("\(movie.title) (\(String(movie.year)))")
              HStack {
                ForEach(Array(MoviesState.stars), id: \.self) { star in
                  Button {
                    store.send(.rate(id: movie.id, stars: star))
                  } label: {
                    Image(systemName: star <= (movie.stars ?? 0) ? "star.fill" : "star")
                  }
                  .buttonStyle(.borderless)
                }
              }
            }
          }
          .onDelete { offsets in
            let movies = store.movies
            for offset in offsets { store.send(.delete(id: movies[offset].id)) }
          }
        }
        Section("Average per genre") {
          ForEach(store.ratingsByGenre, id: \.genre) { rating in
            LabeledContent(
              rating.genre.rawValue,
              value: rating.average.formatted(.number.precision(.fractionLength(1))))
          }
        }
      }
    }
  }
#endif
