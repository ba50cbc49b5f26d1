import ArgumentParser
import Foundation
import ReqdProtocol

/// The request parts a command sends: headers and a body.
struct RequestOptions: ParsableArguments {
    @Option(name: [.customShort("H"), .customLong("header")], help: "A request header, 'Name: value'; repeat for more.")
    var headers: [String] = []

    @Option(name: [.customShort("d"), .customLong("data")], help: "A request body, @FILE for a file's contents, or @- for standard input.")
    var data: String?

    func validate() throws {
        for header in headers where !header.contains(":") {
            throw ValidationError("--header takes 'Name: value'; got '\(header)'")
        }
    }

    /// The headers as the protocol takes them: nil when none were given.
    var headerLines: [String]? { headers.isEmpty ? nil : headers }

    /// The body: as given, or the contents of the file named after an `@` (`@-`: standard input),
    /// read to its end, so a pipe works too; none without `--data`.
    func body() throws -> Payload { try data.map(Self.readBody) ?? Payload() }

    /// A body as the protocol carries it: UTF-8 text as `body`, any other bytes as `body_base64`.
    struct Payload {
        var text: String?
        var base64: String?

        /// Whether there is a body at all.
        var isEmpty: Bool { text == nil && base64 == nil }
    }

    /// A `--data` value: the text itself, or the contents of the file named after an `@`, which
    /// may be any bytes.
    static func readBody(_ data: String) throws -> Payload {
        guard data.hasPrefix("@") else { return Payload(text: data) }
        let path = data == "@-" ? "/dev/stdin" : String(data.dropFirst())
        guard let handle = FileHandle(forReadingAtPath: path), let contents = try? handle.readToEnd() ?? Data() else {
            throw ClientFailure(message: "cannot read --data file '\(path)'", status: ExitStatus.usage)
        }
        if let text = String(data: contents, encoding: .utf8) { return Payload(text: text) }
        return Payload(base64: contents.base64EncodedString())
    }
}

/// Reads `1s..5m` (a bound before the second attempt and the largest one), or a single `1s`.
func parseBackoff(_ text: String) -> (min: Int64, max: Int64?)? {
    let parts = text.components(separatedBy: "..")
    guard (1...2).contains(parts.count), let low = DurationText.parseNanoseconds(parts[0]), low > 0 else { return nil }
    guard parts.count == 2 else { return (low / 1_000_000, nil) }
    guard let high = DurationText.parseNanoseconds(parts[1]), high >= low else { return nil }
    return (max(1, low / 1_000_000), max(1, high / 1_000_000))
}
