import Logging
import Synchronization

/// A log handler that keeps every message, for tests that read what the daemon said.
struct RecordingLogHandler: LogHandler {
    /// The messages logged through every copy of one handler, as `level: message`.
    final class Messages: Sendable {
        private let lines = Mutex<[(line: String, metadata: Logger.Metadata)]>([])

        var all: [String] { lines.withLock { $0.map(\.line) } }

        /// A logger whose every message lands here.
        func logger() -> Logger {
            Logger(label: "reqd-test") { _ in RecordingLogHandler(messages: self) }
        }

        /// The metadata of the first message logged as `line`, if any.
        func metadata(of line: String) -> Logger.Metadata? {
            allMetadata(of: line).first
        }

        /// The metadata of every message logged as `line`, in order.
        func allMetadata(of line: String) -> [Logger.Metadata] {
            lines.withLock { $0.filter { $0.line == line }.map(\.metadata) }
        }

        fileprivate func append(_ line: String, _ metadata: Logger.Metadata) {
            lines.withLock { $0.append((line, metadata)) }
        }
    }

    let messages: Messages
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.append("\(event.level): \(event.message)", metadata.merging(event.metadata ?? [:]) { $1 })
    }
}
