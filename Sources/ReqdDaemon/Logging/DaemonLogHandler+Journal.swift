import CSystemd
import Glibc
import Logging

extension DaemonLogHandler {
    static func sendToJournal(_ event: LogEvent, metadata: Logger.Metadata) {
        var fields = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(journalPriority(event.level))",
            "SYSLOG_IDENTIFIER=reqd",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        for (key, value) in metadata {
            fields.append("\(journalFieldName(key))=\(value)")
        }
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

    /// Converts a metadata key such as `job.id` to a journal field name such as `JOB_ID`.
    static func journalFieldName(_ key: String) -> String {
        var name = String(key.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
        while name.hasPrefix("_") { name.removeFirst() }
        return name.isEmpty ? "FIELD" : name
    }

    static func journalPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
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
