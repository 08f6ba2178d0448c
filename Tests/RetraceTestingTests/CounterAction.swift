import CasePathsCore

enum CounterAction: Equatable, Sendable {
  case incrementTapped
  case loaded(Int)
}

extension CounterAction: CasePathable {
  struct AllCasePaths: Sendable {
    var incrementTapped: AnyCasePath<CounterAction, Void> {
      AnyCasePath(
        embed: { .incrementTapped },
        extract: { if case .incrementTapped = $0 { () } else { nil } })
    }
    var loaded: AnyCasePath<CounterAction, Int> {
      AnyCasePath(
        embed: { .loaded($0) },
        extract: { if case .loaded(let count) = $0 { count } else { nil } })
    }
  }
  static var allCasePaths: AllCasePaths { AllCasePaths() }
}
