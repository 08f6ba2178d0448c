import ArgumentParser
import Foundation
import RetraceCLI
import RetraceDebugger

/// `retrace serve`: Retrace Studio, a web UI over the debugger's engine, served on this
/// machine.
///
/// Add it to an app's own debugger beside the built-in commands:
///
/// ```swift
/// import RetraceCLI
/// import RetraceStudio
///
/// await RetraceCommand.main(domains: [checkoutDomain], commands: [ServeCommand.self])
/// ```
///
/// ```
/// $ my-app-debugger serve traces/
/// Retrace Studio: http://127.0.0.1:7420/?token=4f0c…
/// ```
///
/// It serves until the process is interrupted (Ctrl-C). The page and its API are described
/// in docs/STUDIO.md.
public struct ServeCommand: AsyncParsableCommand {
  /// The command's name, help and options.
  public static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract:
      "Serve Retrace Studio, the web UI, over traces, JSON Lines files or directories, and live sessions.",
    discussion: """
      Prints one line, `Retrace Studio: http://HOST:PORT/?token=T`, and serves until \
      interrupted. The API answers only requests that carry the token (`Authorization: \
      Bearer T` or `?token=T`) and whose Host header is the address served. Apps linked \
      live (RetraceLive) connect to ws://HOST:PORT/api/live; each of their sessions is \
      recorded in --record-dir.
      """)

  /// The sessions to serve; none serves live sessions only.
  @Argument(
    help: "Trace files, JSON Lines files or directories of them (none: live sessions only).")
  public var paths: [String] = []

  /// Where live sessions are recorded.
  @Option(
    name: .customLong("record-dir"),
    help: ArgumentHelp(
      "The directory live sessions are recorded in, created if missing.", valueName: "dir"))
  public var recordDirectory: String = "retrace-live"

  /// The most MiB a live app's message may hold.
  @Option(
    name: .customLong("live-message-limit"),
    help: ArgumentHelp(
      "The most MiB a live app's message may hold (its hello holds its whole state); a larger one closes the link with 1009.",
      valueName: "MiB"))
  public var liveMessageLimit: Int = 64

  /// Where files uploaded from the page are written.
  @Option(
    name: .customLong("upload-dir"),
    help: ArgumentHelp(
      "The directory files dropped on the page are written to, created if missing (default: a new one in the temporary directory).",
      valueName: "dir"))
  public var uploadDirectory: String?

  /// The most MiB a file uploaded from the page may hold.
  @Option(
    name: .customLong("upload-limit"),
    help: ArgumentHelp(
      "The most MiB a file dropped on the page may hold; a larger one is refused with 413.",
      valueName: "MiB"))
  public var uploadLimit: Int = 64

  /// The most live connections served at once.
  @Option(
    name: .customLong("live-connection-limit"),
    help: ArgumentHelp(
      "The most live apps' connections served at once; one more is refused with 503.",
      valueName: "n"))
  public var liveConnectionLimit: Int = LiveHub.defaultConnectionLimit

  /// The port; 0 picks a free one.
  @Option(name: .long, help: "The port to listen on (0 picks a free one).")
  public var port: Int = 7420

  /// The address to listen on.
  @Option(
    name: .long,
    help: "The address to listen on: 127.0.0.1 (default), ::1, localhost, or another interface's.")
  public var host: String = "127.0.0.1"

  /// The token; a random one by default.
  @Option(name: .long, help: "The token the API asks for (default: a random one).")
  public var token: String?

  /// Whether to open the page in a browser.
  @Flag(name: .long, help: "Open the page in the default browser.")
  public var open = false

  /// The private key of encrypted traces (`--key`, or `RETRACE_KEY`).
  @OptionGroup public var keyOptions: KeyOptions

  /// Creates the command; swift-argument-parser calls this.
  public init() {}

  /// Checks the options before any file is read.
  ///
  /// - Throws: `ValidationError` naming the bad option.
  public func validate() throws {
    guard (0...65_535).contains(port) else {
      throw ValidationError("--port must be from 0 to 65535, not \(port).")
    }
    guard (1...4_096).contains(liveMessageLimit) else {
      throw ValidationError(
        "--live-message-limit must be from 1 to 4096 (MiB), not \(liveMessageLimit).")
    }
    guard (1...4_096).contains(uploadLimit) else {
      throw ValidationError("--upload-limit must be from 1 to 4096 (MiB), not \(uploadLimit).")
    }
    guard (1...4_096).contains(liveConnectionLimit) else {
      throw ValidationError(
        "--live-connection-limit must be from 1 to 4096, not \(liveConnectionLimit).")
    }
    guard ListenAddress(host) != nil else {
      throw ValidationError("--host must be an IPv4 or IPv6 address or localhost, not '\(host)'.")
    }
    if let token, !StudioToken.isValid(token) {
      throw ValidationError(
        "--token must be 8 to 256 letters, digits, '-', '_', '.' or '~' (it goes into a URL).")
    }
  }

  /// Opens the sessions, starts the server, prints its address and serves until interrupted.
  ///
  /// - Throws: The first file that cannot be read, or the address that cannot be listened
  ///   on, as one line.
  public func run() async throws {
    // The command's task is the one place where the registered domains are read: the
    // server passes them to everything it runs on its own threads.
    let registry = CommandContext.registry
    let flows = CommandContext.flows
    let key = try keyOptions.load()
    let catalog = try SessionCatalog.open(paths, key: key, registry: registry, flows: flows)
    let address = ListenAddress(host)!
    if !address.isLoopback {
      warn(
        "warning: serving on \(host), which other machines may reach: anyone with the token can read these sessions"
      )
    }
    let server = StudioServer(
      catalog: catalog, address: address, port: UInt16(port),
      token: token ?? StudioToken.random(), recordDirectory: recordDirectory,
      registry: registry, flows: flows, maximumLiveMessageSize: liveMessageLimit << 20,
      liveConnectionLimit: liveConnectionLimit,
      limits: RequestLimits(upload: uploadLimit << 20), uploadDirectory: uploadDirectory, key: key,
      commandName: CommandContext.name)
    let url = try await server.start()
    let signals = removeSocketsOnInterrupt()
    defer { signals.forEach { $0.cancel() } }
    print("Retrace Studio: \(url)")
    fflush(nil)
    if open { openInBrowser(url) }
    try await server.wait()
  }

  /// Removes the server's socket directory when SIGINT, SIGTERM or SIGHUP ends the process
  /// (one the process was started ignoring stays ignored), then lets the signal end it as it
  /// would have.
  private func removeSocketsOnInterrupt() -> [any DispatchSourceSignal] {
    [SIGINT, SIGTERM, SIGHUP].compactMap { number in
      let previous = signal(number, SIG_IGN)
      guard unsafeBitCast(previous, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) else {
        return nil
      }
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        SocketDirectories.removeAll()
        // The signal ends the process as it would have: its default action, unblocked on
        // this thread (a signal source may have blocked it).
        _ = signal(number, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(number)
        _exit(128 + number)
      }
      source.resume()
      return source
    }
  }

  private func openInBrowser(_ url: String) {
    #if os(macOS)
      let opener = "/usr/bin/open"
    #else
      let opener = "/usr/bin/xdg-open"
    #endif
    // The address holds the token, and a command line is readable by every local user: the
    // browser is given a file instead, readable by its owner only, that goes to the address
    // (as Jupyter does).
    var template = Array((NSTemporaryDirectory() + "/retrace-studio-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else {
      warn("warning: cannot open a browser: open the address above yourself")
      return
    }
    let page = String(cString: made) + "/open.html"
    let html =
      "<!doctype html><meta http-equiv=\"refresh\" content=\"0;url=\(url)\"><a href=\"\(url)\">Retrace Studio</a>\n"
    guard
      FileManager.default.createFile(
        atPath: page, contents: Data(html.utf8), attributes: [.posixPermissions: 0o600])
    else {
      warn("warning: cannot open a browser: open the address above yourself")
      return
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: opener)
    process.arguments = [page]
    do {
      try process.run()
    } catch {
      warn("warning: cannot open a browser (\(opener)): open the address above yourself")
    }
  }
}

/// Writes `NAME: message` on stderr, as one line.
///
/// Messages hold what peers sent (a live app's name, a session id, a domain name) and file
/// names: their control characters and bidirectional controls are escaped (`String.oneLine()`),
/// so that none can end the line and forge another, or drive the terminal.
func warn(_ message: String) {
  StandardError.writeLine("\(StandardError.program): \(message)".oneLine())
}
