import Foundation
import ReqdProtocol
import Synchronization

/// Writes the client's output.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func raw(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
        if text.utf8.last == 10 { liveLineOpen.store(false, ordering: .relaxed) }
    }

    /// Rewrites the live line in place with `text`, cut to the terminal's width so that it never
    /// wraps (a wrapped line could not be rewritten). The `ending` line, which moves on to a new
    /// line and is not rewritten again, is shown whole, as it says how the job ended.
    static func live(_ text: String, ending: Bool = false) {
        raw("\r\u{1B}[K" + (ending ? text + "\n" : String(text.prefix(max(1, columns - 1)))))
        liveLineOpen.store(!ending, ordering: .relaxed)
    }

    /// Whether the live line was drawn and not ended: an error then starts on a line of its own.
    private static let liveLineOpen = Atomic<Bool>(false)

    /// The terminal's width: `$COLUMNS` when set (it overrides, as POSIX has it), else the window
    /// size of standard output, else 80.
    static var columns: Int {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(text), value > 0 { return value }
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    static func error(_ text: String) {
        if liveLineOpen.exchange(false, ordering: .relaxed) { raw("\n") }
        FileHandle.standardError.write(Data(("reqd-client: " + text + "\n").utf8))
    }

    /// Prints a value as one line of compact JSON, its keys in the order the value encodes them.
    static func json<T: Encodable>(_ value: T) {
        if var line = try? CompactJSONEncoder().encode(value) {
            line.append(10)
            FileHandle.standardOutput.write(Data(line))
        }
    }

    /// Whether standard output is a terminal, where live lines update in place.
    static var isTerminal: Bool { isatty(1) == 1 }
}
