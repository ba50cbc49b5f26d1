import ReqdCore
import ReqdProtocol

/// The one place where the daemon's internal errors become wire error codes.
enum WireErrorMapping {
    static func wireError(_ error: SchedulerError) -> WireError {
        let code: ErrorCode
        switch error.code {
        case .badField: code = .badField
        case .missingField: code = .missingField
        case .conflictingFields: code = .conflictingFields
        case .badDuration: code = .badDuration
        case .badURL: code = .badURL
        case .badCondition: code = .badCondition
        case .unknownJob: code = .unknownJob
        case .unsupportedProtocol: code = .unsupportedProtocol
        case .tooManyJobs: code = .tooManyJobs
        case .storageUnavailable: code = .storageUnavailable
        case .shuttingDown: code = .shuttingDown
        }
        return WireError(code, error.message, column: error.column)
    }

    static func lineTooLong(limit: Int) -> WireError {
        WireError(.lineTooLong, "the request line is longer than \(limit) bytes; it was discarded")
    }
}
