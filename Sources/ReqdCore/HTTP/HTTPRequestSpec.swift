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
    /// The name of the header that carries a request job's id.
    static let idempotencyKey = "Idempotency-Key"

    /// Whether the request names its own `Idempotency-Key`.
    var namesIdempotencyKey: Bool {
        headers.contains { $0.name.utf8.count == Self.idempotencyKey.utf8.count && $0.name.lowercased() == "idempotency-key" }
    }

    /// The request as request job `job` sends it: with `Idempotency-Key: <job id>` unless it names
    /// one, the same key on every attempt and after restarts, so a target can drop repeats.
    ///
    /// The header is added as each attempt is sent, not kept with the job: a retained job would
    /// pay about 60 bytes for a value its id already holds.
    func sent(by job: JobID) -> HTTPRequestSpec {
        guard !namesIdempotencyKey else { return self }
        var request = self
        request.headers.append(HTTPHeader(name: Self.idempotencyKey, value: job.rawValue))
        return request
    }

    /// The request as a request job keeps it, from one read back from the store: without the
    /// `Idempotency-Key: <job id>` that `sent(by:)` added when its row was written. Rows keep the
    /// header, as they always have, so an earlier reqd that reads them sends it too.
    func kept(by job: JobID) -> HTTPRequestSpec {
        guard let last = headers.last, last.name == Self.idempotencyKey, last.value == job.rawValue else { return self }
        var request = self
        request.headers.removeLast()
        return request
    }

    /// The names of the headers a request job sends: its own, and `Idempotency-Key` unless it names one.
    var sentHeaderNames: [String] {
        headers.map(\.name) + (namesIdempotencyKey ? [] : [Self.idempotencyKey])
    }
}
