import Foundation
import ReqdProtocol

/// Writes the client's output.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func raw(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func error(_ text: String) {
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
