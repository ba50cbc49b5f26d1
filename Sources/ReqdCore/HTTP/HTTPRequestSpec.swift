/// An HTTP request a job sends: validated at registration, carried out by the daemon's executor.
public struct HTTPRequestSpec: Sendable, Hashable, Codable {
    /// The method, upper case, such as `GET`.
    public var method: String
    /// An absolute `http` or `https` URL.
    public var url: String
    /// Header fields in the order given.
    public var headers: [HTTPHeader]
    /// The body, or nil for none.
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// Validates the parts a client sent and builds the request, or says what is wrong.
    ///
    /// The method must be an HTTP token, the URL an absolute `http` or `https` URL with a host, and
    /// each header a `Name: value` line without line breaks.
    public static func validated(
        method: String?, url: String, headers: [String]?, body: String?
    ) throws(SchedulerError) -> HTTPRequestSpec {
        let method = (method ?? "GET").uppercased()
        guard HTTPHeader.isToken(method) else {
            throw SchedulerError(.badField, "'method' must be an HTTP method such as GET or POST")
        }
        try RequestURL.validate(url)
        var parsed: [HTTPHeader] = []
        for line in headers ?? [] {
            parsed.append(try HTTPHeader(line: line))
        }
        return HTTPRequestSpec(method: method, url: url, headers: parsed, body: body.map { Array($0.utf8) })
    }
}

extension HTTPRequestSpec {
    /// Adds `Idempotency-Key: <job id>` unless the request names one: the same key on every
    /// attempt, and after restarts (the id is stored), so a target can drop repeats.
    mutating func addIdempotencyKey(_ job: JobID) {
        guard !headers.contains(where: { $0.name.lowercased() == "idempotency-key" }) else { return }
        headers.append(HTTPHeader(name: "Idempotency-Key", value: job.rawValue))
    }
}

/// One header field.
public struct HTTPHeader: Sendable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses a `Name: value` line, as `curl -H` takes it.
    public init(line: String) throws(SchedulerError) {
        guard let colon = line.firstIndex(of: ":") else {
            throw SchedulerError(.badField, "a header must look like 'Name: value'")
        }
        let name = String(line[..<colon])
        let value = String(line[line.index(after: colon)...]).trimmingSpaces()
        guard Self.isToken(name) else {
            throw SchedulerError(.badField, "'\(name.prefix(64))' is not a valid header name")
        }
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw SchedulerError(.badField, "the value of header '\(name)' contains a line break")
        }
        self.init(name: name, value: value)
    }

    /// Whether `text` is an RFC 9110 token (what a method or header name must be).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(scalars[first...last])
    }
}
