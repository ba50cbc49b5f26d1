import CSystemd
import Glibc
import Logging

/// A swift-log handler that writes to journald through its native protocol (`sd_journal_sendv`).
///
/// Metadata keys become journal fields: `job.id` becomes `JOB_ID`, so `journalctl -u reqd JOB_ID=...`
/// finds one job's story. `PRIORITY` follows the log level.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let control: LogLevelControl

    public init(label: String, control: LogLevelControl) {
        self.label = label
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
        var fields = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(Self.priority(event.level))",
            "SYSLOG_IDENTIFIER=reqd",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        for (key, value) in merged {
            fields.append("\(Self.fieldName(key))=\(value)")
        }
        Self.send(fields)
    }

    /// Converts a metadata key such as `job.id` to a journal field name such as `JOB_ID`.
    static func fieldName(_ key: String) -> String {
        var name = String(key.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
        while name.hasPrefix("_") { name.removeFirst() }
        return name.isEmpty ? "FIELD" : name
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    private static func send(_ fields: [String]) {
        var storage = fields.map { Array($0.utf8) }
        var vectors: [iovec] = []
        vectors.reserveCapacity(storage.count)
        storage.withUnsafeMutableBufferPointer { buffers in
            for index in buffers.indices {
                buffers[index].withUnsafeMutableBytes { raw in
                    vectors.append(iovec(iov_base: raw.baseAddress, iov_len: raw.count))
                }
            }
            _ = sd_journal_sendv(vectors, Int32(vectors.count))
        }
    }

    /// Whether stderr is connected to journald (`$JOURNAL_STREAM` names stderr's device and inode).
    public static func stderrIsJournal() -> Bool {
        guard let stream = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
