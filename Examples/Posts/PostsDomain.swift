import Retrace
import RetraceCoordinator

/// The `posts` domain, after the seed's coordinator series: a tab bar (feed, settings), a
/// post list that is loading, displaying or failed, post details and a share sheet.
///
/// Its reducer loads ``Post/samples`` when an effect runs; replays never run it, since the
/// results are recorded as `postsLoaded` and `loadFailed` actions.
public let postsDomain = DomainDefinition(
  name: "posts",
  summary: "A post list with loading, display and error states behind a tab bar and a coordinator.",
  initialState: PostsState(),
  reducer: PostsReducer(loader: { Post.samples }),
  actionCases: PostsAction.caseNames,
  invariants: postsInvariants,
  workload: PostsWorkload.workload,
  explorationActions: PostsExploration.actions,
  predicates: postsPredicates,
  statesHashEveryField: true
)

/// The posts domain's invariants.
public let postsInvariants: [Invariant<PostsState>] = [
  Invariant(
    "valid-navigation",
    "Every stack starts at its tab's root and every push and presentation on it is allowed by the flow rules."
  ) {
    $0.navigation.isValid(under: PostsFlow.rules)
  },
  Invariant(
    "screens-match-stack",
    "Every screen state belongs to a route on a stack, and every post list and post detail on a stack has its state."
  ) {
    $0.screens.isInStep(with: $0.navigation, make: PostsScreen.init(route:))
  },
  NavigationChecks.returnsToRoot(
    reducer: PostsReducer(loader: { Post.samples }), navigation: { $0.navigation },
    action: { .navigation(action: $0) }),
]
