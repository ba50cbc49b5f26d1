import Logging
import Synchronization

/// Logs the job store's write failures once per episode: the first failed transaction at
/// `error`, naming SQLite's error, and the first one that succeeds after them at `notice`, with
/// how many failed.
///
/// A store that stays down fails every group commit; one line each would be a flood, and no line
/// at all would leave an admin no trace of why registrations were refused with
/// `storage_unavailable` or why state changes wait.
final class StoreHealthLog: Sendable {
    private let logger: Logger
    private let failures = Mutex(0)

    init(logger: Logger) {
        self.logger = logger
    }

    /// A transaction ended: `failure` is SQLite's error, or nil when it was written.
    func committed(failure: String?) {
        let (first, recoveredAfter) = failures.withLock { count -> (Bool, Int?) in
            if failure != nil {
                count += 1
                return (count == 1, nil)
            }
            defer { count = 0 }
            return (false, count > 0 ? count : nil)
        }
        if first, let failure {
            logger.error("job store write failed; durable registrations are refused until it recovers", metadata: ["store.error": "\(failure)"])
        }
        if let recoveredAfter {
            logger.notice("job store writes recovered", metadata: ["store.failed_writes": "\(recoveredAfter)"])
        }
    }
}
