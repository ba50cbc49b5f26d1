/// The secrets a target's requests are signed with (`sign_secret_file`), Standard Webhooks style.
///
/// The file holds one `whsec_` secret a line (the base64 of the key after the prefix); with more
/// than one, every request carries a signature by each, so a receiver can move to a new secret
/// while the old one still verifies. The keys never appear in a description, a log or a reply.
public struct SigningSecrets: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The HMAC keys, decoded, in the file's order.
    public let keys: [[UInt8]]

    /// Reads the file's text: blank lines and lines starting with `#` are skipped; any other line
    /// must be a `whsec_` secret. The error names the line's number, never its text.
    public init(parsing text: String) throws(SchedulerError) {
        var keys: [[UInt8]] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = String(raw).trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard line.hasPrefix("whsec_"), let key = Base64.decode(String(line.dropFirst("whsec_".count))), !key.isEmpty else {
                throw SchedulerError(.badField, "line \(index + 1) is not a secret: give whsec_ and the key in base64, one a line")
            }
            keys.append(key)
        }
        guard !keys.isEmpty else { throw SchedulerError(.badField, "it holds no secret: give whsec_ and the key in base64, one a line") }
        self.keys = keys
    }

    /// How many secrets, never what they are.
    public var description: String { keys.count == 1 ? "1 signing secret" : "\(keys.count) signing secrets" }

    /// The description's words, so that `dump` and the debugger show no key either.
    public var customMirror: Mirror { Mirror(self, children: ["secrets": description]) }
}
