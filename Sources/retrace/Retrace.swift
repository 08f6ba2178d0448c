import RetraceCLI
import RetraceExamples

/// The bundled `retrace` debugger: ``RetraceCommand`` with the example domains, and the
/// posts example's navigation for `retrace flows`.
@main
enum Retrace {
  static func main() async {
    await RetraceCommand.main(
      domains: Examples.domains,
      flows: [NavigationFlow(domain: postsDomain, navigation: { $0.navigation }, rules: PostsFlow.rules)])
  }
}
