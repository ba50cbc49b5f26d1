import Logging

/// The daemon's swift-log handler: journald's native protocol under systemd, readable lines on stderr elsewhere.
///
/// Every handler shares one `LogLevelControl`, so a reload changes the level everywhere at once.
public struct DaemonLogHandler: LogHandler {
    /// Where the handler writes.
    public enum Destination: Sendable {
        /// journald, through `sd_journal_sendv`; metadata keys become fields (`job.id` → `JOB_ID`).
        case journal
        /// One line per message on stderr.
        case stderr
    }

    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let destination: Destination
    private let control: LogLevelControl

    public init(destination: Destination, control: LogLevelControl) {
        self.destination = destination
        self.control = control
    }

    public var logLevel: Logger.Level {
        get { control.current }
        set { control.current = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let kind = event.metadata?["job.kind"].map { "\($0)" } ?? "daemon"
        let (allowed, summary) = control.admit(event.level, kind: kind)
        if let summary { writeSummary(summary) }
        guard allowed else { return }
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        write(event, metadata: merged)
    }

    /// Writes the `notice` line that says what the log rate held back.
    func writeSummary(_ summary: String) {
        let line = LogEvent(
            level: .notice, message: "\(summary)", metadata: ["log.held_back": "true"], source: "reqd", file: #fileID,
            function: #function, line: #line)
        write(line, metadata: metadata)
    }

    private func write(_ event: LogEvent, metadata: Logger.Metadata) {
        switch destination {
        case .journal: Self.sendToJournal(event, metadata: metadata)
        case .stderr: Self.writeLine(event, metadata: metadata)
        }
    }
}
