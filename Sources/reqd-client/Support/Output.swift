import Foundation

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

    /// Prints a value as one line of JSON with sorted keys.
    static func json<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(value) {
            FileHandle.standardOutput.write(data + Data([10]))
        }
    }

    /// Whether standard output is a terminal, where live lines update in place.
    static var isTerminal: Bool { isatty(1) == 1 }
}
