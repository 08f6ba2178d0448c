import ArgumentParser
import Dispatch
import Foundation
import Retrace
import RetraceExamples
import RetraceLive
import RetraceLog
import Synchronization

/// `retrace-demo`: an app stand-in for live sessions. It runs a store of an example domain,
/// sends it actions from the domain's workload generator, and links it live to Retrace
/// Studio (and, with `--trace`, records its own trace), so that the Studio's live side can
/// be tried and tested without an app.
///
/// It prints one line per event on stdout:
///
/// ```
/// connected, hello after 0 (dropped 0)
/// jumped after 120 to state 44bc2cf5ad770999
/// sent 200 actions, dropped 0
/// ```
@main
struct RetraceDemo: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "retrace-demo",
    abstract: "Run an example domain's store, linked live to Retrace Studio.",
    discussion: """
      Sends the domain's workload to a store at --rate actions a second and streams them to \
      the Studio at --live (the line `retrace serve` prints). The Studio can move the store \
      to an earlier state; the demo prints `jumped after S to state HASH` when it does. \
      After --actions actions it keeps serving the Studio until SIGINT or SIGTERM, or, with \
      --exit-after-idle, until the Studio has sent no command for that long. It ends with \
      `sent N actions, dropped D`: N actions sent to the store, D of them never sent to \
      the Studio (their state reached it in a later hello).
      """)

  @Argument(help: "The example domain to run (counter, banking, settings, posts, …).")
  var domain: String

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The Studio: the address `retrace serve` prints (http://HOST:PORT/?token=T).",
      valueName: "url"))
  var live: String

  @Option(name: .long, help: "Actions a second; 0 sends them as fast as possible.")
  var rate: Double = 5

  @Option(name: .long, help: "How many actions to send (default: no end).")
  var actions: Int?

  @Option(
    name: .long,
    help: ArgumentHelp("Also record the app's own trace to this file.", valueName: "path"))
  var trace: String?

  @Option(name: .long, help: "The workload generator's seed.")
  var seed: UInt64 = 1

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Exit once --actions are sent and the Studio has sent no command for this long.",
      valueName: "seconds"))
  var exitAfterIdle: Double?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The link's checkpoint interval (LiveLinkConfiguration.checkpointInterval); 0 sends no checkpoint.",
      valueName: "actions"))
  var checkpointInterval: UInt64 = LiveLinkConfiguration().checkpointInterval

  func validate() throws {
    guard rate.isFinite, rate >= 0 else {
      throw ValidationError("--rate must be 0 or more, not \(rate).")
    }
    if let actions, actions < 0 {
      throw ValidationError("--actions must be 0 or more, not \(actions).")
    }
    if let exitAfterIdle {
      guard exitAfterIdle.isFinite, exitAfterIdle >= 0 else {
        throw ValidationError("--exit-after-idle must be 0 or more, not \(exitAfterIdle).")
      }
      guard actions != nil else {
        throw ValidationError("--exit-after-idle needs --actions: the demo sends forever without.")
      }
    }
    guard let found = Examples.domain(named: domain) else {
      let names = Examples.domains.map(\.name).joined(separator: ", ")
      throw ValidationError("no example domain \(domain); there are \(names).")
    }
    func hasWorkload<D: Domain>(_ domain: D) -> Bool { domain.workload != nil }
    guard hasWorkload(found) else {
      throw ValidationError("domain \(domain) has no workload generator.")
    }
  }

  /// Parses and runs; an error is one line on stderr and a non-zero exit.
  static func main() async {
    do {
      var command = try parseAsRoot()
      if let demo = command as? RetraceDemo {
        try await demo.runDemo()
      } else {
        try command.run()
      }
    } catch {
      let code = exitCode(for: error)
      if code == .success {
        print(fullMessage(for: error))
        return
      }
      let message = message(for: error).split(separator: "\n").first.map(String.init) ?? ""
      FileHandle.standardError.write(Data("retrace-demo: \(message)\n".utf8))
      Foundation.exit(code == .validationFailure ? 64 : 1)
    }
  }

  @MainActor
  func runDemo() async throws {
    // `validate()` found it.
    let domain = Examples.domain(named: domain)!
    try await run(domain)
  }

  @MainActor
  private func run<D: Domain>(_ domain: D) async throws {
    let store = Store(
      initialState: domain.initialState,
      reducer: Reduce<D.State, D.Action> { domain.reduce(into: &$0, action: $1) })
    let lastCommand = Mutex(ContinuousClock.now)
    let link: LiveLink<D.State, D.Action>
    var configuration = LiveLinkConfiguration()
    configuration.checkpointInterval = checkpointInterval
    do {
      link = try LiveLink(
        domain: domain, studio: live, app: ["name": "retrace-demo"], configuration: configuration
      ) { event in
        switch event {
        case .connected(let sequence, let dropped):
          say("connected, hello after \(sequence) (dropped \(dropped))")
        case .resynchronized(let sequence, let dropped):
          say("resynchronized, hello after \(sequence) (dropped \(dropped))")
        case .disconnected(let error):
          say("disconnected: \(error)")
        case .jumped(let sequence, let hash):
          lastCommand.withLock { $0 = .now }
          say("jumped after \(sequence) to state \(hash)")
        case .refused(let error):
          lastCommand.withLock { $0 = .now }
          say("refused: \(error)")
        }
      }
    } catch {
      throw ValidationError("--live: \(error)")
    }
    let recorder = try trace.map { path throws(TraceError) in
      try TraceRecorder(path: path, domain: domain, app: ["name": "retrace-demo"])
    }
    if let recorder { store.attach(recorder) }
    store.attach(link)

    let stop = StopRequest()
    let sources = stop.installed(for: [SIGINT, SIGTERM])
    defer { for source in sources { source.cancel() } }

    // `validate()` checked that the domain has one.
    let workload = domain.workload!
    var random = SeededRandom(seed: seed)
    var sent = 0
    let start = ContinuousClock.now
    let interval: Duration = rate > 0 ? .seconds(1 / rate) : .zero
    while !stop.isRequested && sent < (actions ?? Int.max) {
      let action = store.withState { workload.next($0, sent, &random) }
      store.send(action)
      sent += 1
      if rate > 0 {
        let due = start + interval * sent
        if due > .now { try? await Task.sleep(until: due, clock: .continuous) }
      } else if sent % 256 == 0 {
        // As fast as possible, but the link's hello and the Studio's jumps need the main
        // actor now and then.
        await Task.yield()
      }
    }
    let finished = ContinuousClock.now
    lastCommand.withLock { $0 = max($0, finished) }
    while !stop.isRequested {
      if let exitAfterIdle,
        ContinuousClock.now - lastCommand.withLock({ $0 }) >= .seconds(exitAfterIdle)
      {
        break
      }
      try? await Task.sleep(for: .milliseconds(20))
    }
    await link.close()
    if let recorder { try recorder.close() }
    say("sent \(sent) actions, dropped \(link.droppedActionCount)")
  }
}

/// Writes one line to stdout at once, unbuffered, so that a reader sees it as it happens.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Set by SIGINT or SIGTERM: the demo stops sending, closes the link and the trace, and
/// exits.
final class StopRequest: Sendable {
  private let flag = Atomic<Bool>(false)

  var isRequested: Bool { flag.load(ordering: .relaxed) }

  /// Ignores `signals`' default action and sets the flag when one arrives. Not on the main
  /// actor: the handlers run on a dispatch queue, and a closure formed on the main actor
  /// would be isolated to it.
  nonisolated func installed(for signals: [Int32]) -> [any DispatchSourceSignal] {
    signals.map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { [self] in flag.store(true, ordering: .relaxed) }
      source.resume()
      return source
    }
  }
}
