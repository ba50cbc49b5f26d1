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
        method: String?, url: String, headers: [String]?, body: [UInt8]?
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
        return HTTPRequestSpec(method: method, url: url, headers: parsed, body: body)
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
