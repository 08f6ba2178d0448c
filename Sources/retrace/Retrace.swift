import RetraceCLI
import RetraceExamples

/// The bundled `retrace` debugger: ``RetraceCommand`` with the example domains.
@main
enum Retrace {
  static func main() async {
    await RetraceCommand.main(domains: Examples.domains)
  }
}
