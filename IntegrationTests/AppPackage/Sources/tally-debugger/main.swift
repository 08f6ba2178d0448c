import RetraceCLI
import TallyApp

// The app's own debugger: `retrace`'s commands, for the app's domains, under its own name.
await RetraceCommand.main(name: "tally-debugger", version: "1.0.0", domains: [tallyDomain])
