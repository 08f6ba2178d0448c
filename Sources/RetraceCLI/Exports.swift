// A navigation flow (registered with `RetraceCommand.main(domains:flows:)`) and the bench
// report's build note are read by every tool on the engine, the Studio as well as the
// commands: they live in RetraceDebugger, and are re-exported so that an app that imports
// RetraceCLI names them as before.
@_exported import enum RetraceDebugger.BenchBuild
@_exported import struct RetraceDebugger.NavigationFlow
