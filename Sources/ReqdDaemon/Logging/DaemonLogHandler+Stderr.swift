import Foundation
import Logging
import ReqdProtocol

extension DaemonLogHandler {
    /// Writes `2026-11-22T10:00:00.123Z info countdown registered job.id=cd_...` to stderr.
    static func writeLine(_ event: LogEvent, metadata: Logger.Metadata) {
        let now = WallTime(nanosecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1e9))
        var line = "\(now.rfc3339) \(event.level) \(event.message)"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
