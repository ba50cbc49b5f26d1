import ReqdCore
import ReqdProtocol

/// The one place where anything the daemon refuses becomes a reply's `WireError`.
///
/// The scheduler's refusals already carry their wire code (ReqdCore speaks the wire's
/// vocabulary); the errors only the socket layer can see, such as an oversized line, get theirs here.
enum WireErrorMapping {
    static func wireError(_ error: SchedulerError) -> WireError {
        WireError(error.code, error.message, column: error.column)
    }

    static func lineTooLong(limit: Int) -> WireError {
        WireError(.lineTooLong, "the request line is longer than \(limit) bytes; it was discarded")
    }

    /// A connection over `limits.connections_per_user`; `reason` names the limit and its value.
    static func connectionRefused(_ reason: String) -> WireError {
        WireError(.quotaExceeded, reason + "; this connection is closed")
    }
}
