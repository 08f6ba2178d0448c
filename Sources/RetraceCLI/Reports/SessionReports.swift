import Foundation
import RetraceDebugger
import RetraceLog

// The parts several commands' `--json` reports share. Every report is written with
// `ReportJSON`'s encoder (keys sorted); a key whose value is absent is written as `null`
// unless its doc comment says it is left out.
