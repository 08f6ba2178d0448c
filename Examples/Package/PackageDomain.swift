import Retrace

/// The `package` domain: a parcel edited in a form while the same parcel is changed from
/// outside the store, the changes kept in step by an ``Retrace/ExternalModelAdapter``.
public let packageDomain = DomainDefinition(
  name: "package",
  summary: "A parcel edited in a form while an outside model changes it too.",
  initialState: PackageState(),
  reducer: PackageReducer(),
  sampleActions: PackageAction.samples,
  invariants: packageInvariants,
  workload: PackageWorkload.workload,
  explorationActions: PackageExploration.actions,
  stateConstraint: PackageExploration.constraint,
  predicates: packagePredicates,
  statesHashEveryField: true
)

/// The package domain's invariants.
public let packageInvariants: [Invariant<PackageState>] = [
  Invariant(
    "summary-matches-model",
    "The summary line describes the parcel as it is, after the form's changes and the outside model's."
  ) {
    $0.summary == $0.parcel.summary
  }
]
