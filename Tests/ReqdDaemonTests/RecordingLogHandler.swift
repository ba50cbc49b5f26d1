import Logging
import Synchronization

/// A log handler that keeps every message, for tests that read what the daemon said.
struct RecordingLogHandler: LogHandler {
    /// The messages logged through every copy of one handler, as `level: message`.
    final class Messages: Sendable {
        private let lines = Mutex<[String]>([])

        var all: [String] { lines.withLock { $0 } }

        fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    let messages: Messages
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.append("\(event.level): \(event.message)")
    }
}
