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
        try Self.check(headers: headers)
    }

    /// Refuses a header without its `:`, naming it by its place: its text may be a secret (an
    /// `Authorization` value whose colon was forgotten), so it is not echoed.
    static func check(headers: [String]) throws {
        for (index, header) in headers.enumerated() where !header.contains(":") {
            throw ValidationError("--header takes 'Name: value'; header \(index + 1) of \(headers.count) has no ':' (its text is not shown, as it may be a secret)")
        }
    }

    /// The headers as the protocol takes them: nil when none were given.
    var headerLines: [String]? { headers.isEmpty ? nil : headers }

    /// The body: as given, or the contents of the file named after an `@` (`@-`: standard input),
    /// read to its end, so a pipe works too; none without `--data`.
    func body() throws -> Payload { try data.map(Self.readBody) ?? Payload() }

    /// A body as the protocol carries it: UTF-8 text as `body`, any other bytes as `body_base64`,
    /// and text too when JSON would escape it into more than base64 takes (control characters).
    struct Payload {
        var text: String?
        var base64: String?

        /// Whether there is a body at all.
        var isEmpty: Bool { text == nil && base64 == nil }
    }

    /// A `--data` value: the text itself, or the contents of the file named after an `@`, which
    /// may be any bytes.
    static func readBody(_ data: String) throws -> Payload {
        guard data.hasPrefix("@") else { return payload(Data(data.utf8)) }
        let path = data == "@-" ? "/dev/stdin" : String(data.dropFirst())
        guard let handle = FileHandle(forReadingAtPath: path), let contents = try? handle.readToEnd() ?? Data() else {
            throw ClientFailure(message: "cannot read --data file '\(path)'", status: ExitStatus.usage)
        }
        return payload(contents)
    }

    /// `bytes` in the smaller of their two forms on the wire: text when they are UTF-8 and JSON
    /// escapes them into no more than base64 takes, else base64. A request line has a limit
    /// (`socket.max_line_bytes`), which the larger form could pass.
    static func payload(_ bytes: Data) -> Payload {
        let base64Length = (bytes.count + 2) / 3 * 4
        if escapedLength(bytes) <= base64Length, let text = String(data: bytes, encoding: .utf8) { return Payload(text: text) }
        return Payload(base64: bytes.base64EncodedString())
    }

    /// How many bytes the client's JSON writer takes for `bytes` in a string: two for a quote, a
    /// backslash, a tab, a line feed and a carriage return, six for the other control characters.
    static func escapedLength(_ bytes: Data) -> Int {
        bytes.reduce(0) { length, byte in
            switch byte {
            case 0x22, 0x5C, 0x09, 0x0A, 0x0D: length + 2
            case 0..<0x20: length + 6
            default: length + 1
            }
        }
    }
}

/// Reads `1s..5m` (a bound before the second attempt and the largest one), or a single `1s`, in
/// whole milliseconds; nil below one.
func parseBackoff(_ text: String) -> (min: Int64, max: Int64?)? {
    let parts = text.components(separatedBy: "..")
    guard (1...2).contains(parts.count), let low = DurationText.parseNanoseconds(parts[0]), low >= 1_000_000 else { return nil }
    guard parts.count == 2 else { return (low / 1_000_000, nil) }
    guard let high = DurationText.parseNanoseconds(parts[1]), high >= low else { return nil }
    return (low / 1_000_000, high / 1_000_000)
}
