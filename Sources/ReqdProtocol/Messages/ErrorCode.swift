/// The stable error codes a reply can carry. docs/PROTOCOL.md lists them; never rename one.
public enum ErrorCode: String, Codable, Sendable, CaseIterable, Hashable {
    /// The request line was longer than the daemon's limit.
    case lineTooLong = "line_too_long"
    /// The line was not a JSON object.
    case badJSON = "bad_json"
    /// A required field was missing.
    case missingField = "missing_field"
    /// A field had the wrong type or an invalid value.
    case badField = "bad_field"
    /// The request named a field the operation does not take.
    case unknownField = "unknown_field"
    /// Two fields that exclude each other were both given, or none of a required pair.
    case conflictingFields = "conflicting_fields"
    /// The `op` is not one the daemon knows.
    case unknownOperation = "unknown_op"
    /// A duration was negative, zero where that makes no sense, or absurdly large.
    case badDuration = "bad_duration"
    /// A URL was not an absolute `http` or `https` URL.
    case badURL = "bad_url"
    /// A poll condition (or progress pointer) could not be parsed; `column` says where.
    case badCondition = "bad_condition"
    /// A schedule's calendar or cron expression, or its zone, is not valid, or never elapses.
    case badSchedule = "bad_schedule"
    /// No job with that id exists for this caller.
    case unknownJob = "unknown_job"
    /// The client asked for a protocol version the daemon does not speak.
    case unsupportedProtocol = "unsupported_protocol"
    /// The daemon holds as many jobs as its configuration allows.
    case tooManyJobs = "too_many_jobs"
    /// The caller is at one of its per-user limits (`limits.*`); the message names it and its value.
    case quotaExceeded = "quota_exceeded"
    /// The daemon holds `socket.max_connections` connections; sent as the one line a new
    /// connection gets before it is closed.
    case tooManyConnections = "too_many_connections"
    /// The target policy (`http.allow`, `http.deny`) refuses the URL's address.
    case deniedTarget = "denied_target"
    /// The job could not be written to disk, so it was not accepted.
    case storageUnavailable = "storage_unavailable"
    /// The daemon is stopping and accepts no new work.
    case shuttingDown = "shutting_down"
    /// Something went wrong inside the daemon; the log says more.
    case `internal` = "internal"
}
