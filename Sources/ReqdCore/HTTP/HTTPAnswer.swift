import ReqdProtocol

/// An HTTP answer, with its body already cut to the executor's limit.
public struct HTTPAnswer: Sendable, Hashable {
    public var status: Int
    public var body: [UInt8]
    /// The body parsed as JSON, when the request asked for that and it parsed.
    public var json: JSONValue?
    /// The response headers, when the request asked to keep them.
    public var headers: [HTTPHeader]?
    /// The `Retry-After` header of a `429` or `503`, kept whatever the request asked, since it
    /// pauses the whole target.
    public var retryAfter: String?

    public init(status: Int, body: [UInt8] = [], json: JSONValue? = nil, headers: [HTTPHeader]? = nil, retryAfter: String? = nil) {
        self.status = status
        self.body = body
        self.json = json
        self.headers = headers
        self.retryAfter = retryAfter
    }
}

extension HTTPAnswer {
    /// The wait `Retry-After` asks for (seconds, or an HTTP date), capped at `cap`; nil without one.
    func retryAfterNanos(at now: ClockReading, cap: Int64) -> Int64? {
        guard let value = retryAfter ?? headers?.first(where: { $0.name.lowercased() == "retry-after" })?.value else { return nil }
        let trimmed = value.trimmingSpaces()
        var wait: Int64?
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Seconds, however many digits: more than 64 bits hold is still "wait the longest".
            if let seconds = Int64(trimmed), !seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow {
                wait = seconds * 1_000_000_000
            } else {
                wait = cap
            }
        } else if let date = HTTPDate.parse(trimmed) {
            wait = max(0, date.nanosecondsSinceEpoch - now.wall.nanosecondsSinceEpoch)
        }
        return wait.map { min($0, cap) }
    }

    /// The part of the answer a job keeps: its status, its header lines up to
    /// `AttemptInfo.headerBytes` (as an attempt's log entry keeps them, so the two share them),
    /// and at most `limit` bytes of its body, cut on a character boundary.
    func kept(_ limit: Int) -> HTTPResult {
        var end = min(body.count, limit)
        while end > 0, end < body.count, body[end] & 0xC0 == 0x80 { end -= 1 }
        return HTTPResult(
            status: status, headers: headers.map { AttemptInfo.keptHeaders($0.map { "\($0.name): \($0.value)" }).lines },
            body: String(decoding: body[..<end], as: UTF8.self), truncated: end < body.count)
    }
}
