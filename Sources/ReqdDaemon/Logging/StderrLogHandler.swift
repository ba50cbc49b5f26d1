import Foundation
import Logging
import ReqdProtocol

/// A swift-log handler that writes one readable line per message to stderr.
///
/// Used when the daemon is not under journald: `2026-11-22T10:00:00.123Z info countdown registered job.id=cd_...`.
public struct StderrLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let control: LogLevelControl

    public init(label: String, control: LogLevelControl) {
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
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let now = WallTime(nanosecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1e9))
        var line = "\(now.rfc3339) \(event.level) \(event.message)"
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
