// The session types are the log's own: RetraceLog reads and writes sessions, the engine works
// on them. They are re-exported so that users of the engine name them without importing
// RetraceLog.
@_exported import struct RetraceLog.Checkpoint
@_exported import struct RetraceLog.IntegrityReport
@_exported import enum RetraceLog.JSONLines
@_exported import struct RetraceLog.RecordedSession
@_exported import struct RetraceLog.SessionInfo
@_exported import struct RetraceLog.Snapshot
@_exported import struct RetraceLog.TimedAction
@_exported import struct RetraceLog.TraceError
