import RetraceCLI
import RetraceExamples
import RetraceStudio

/// The bundled `retrace` debugger: ``RetraceCommand`` with the example domains (and
/// `banking-with-fees`, a changed banking reducer to replay old traces against), and the
/// navigation of the two that have a coordinator (posts, banking) for `retrace flows`; and
/// `retrace serve`, Retrace Studio.
@main
enum Retrace {
  static func main() async {
    await RetraceCommand.main(
      domains: Examples.domains + [bankingWithFeesDomain],
      flows: [
        NavigationFlow(domain: postsDomain, navigation: { $0.navigation }, rules: PostsFlow.rules),
        NavigationFlow(
          domain: bankingDomain, navigation: { $0.navigation }, rules: BankingRoute.rules),
      ],
      commands: [ServeCommand.self])
  }
}
