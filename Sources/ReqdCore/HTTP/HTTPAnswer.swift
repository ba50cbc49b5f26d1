import ReqdProtocol

/// An HTTP answer, with its body already cut to the executor's limit.
public struct HTTPAnswer: Sendable, Hashable {
    public var status: Int
    public var body: [UInt8]
    /// The body parsed as JSON, when the request asked for that and it parsed.
    public var json: JSONValue?
    /// The response headers, when the request asked to keep them.
    public var headers: [HTTPHeader]?

    public init(status: Int, body: [UInt8] = [], json: JSONValue? = nil, headers: [HTTPHeader]? = nil) {
        self.status = status
        self.body = body
        self.json = json
        self.headers = headers
    }
}

extension HTTPAnswer {
    /// The part of the answer a job keeps: its status and at most `limit` bytes of its body, cut
    /// on a character boundary.
    func kept(_ limit: Int) -> HTTPResult {
        var end = min(body.count, limit)
        while end > 0, end < body.count, body[end] & 0xC0 == 0x80 { end -= 1 }
        return HTTPResult(
            status: status, headers: headers?.map { "\($0.name): \($0.value)" },
            body: String(decoding: body[..<end], as: UTF8.self), truncated: end < body.count)
    }
}
