/// The answer that ended a job: its HTTP status, its headers for request jobs, and the start of its body.
public struct HTTPResult: Codable, Sendable, Hashable {
    public var status: Int
    private(set) var headerLines: HeaderLines?
    /// The body as text (invalid UTF-8 replaced), cut to the configured size.
    public var body: String
    /// Whether `body` was cut.
    public var truncated: Bool

    public init(status: Int, headers: [String]? = nil, body: String, truncated: Bool) {
        self.status = status
        self.body = body
        self.truncated = truncated
        self.headers = headers
    }

    /// The response headers as `Name: value` lines; request jobs keep them, poll jobs do not.
    public var headers: [String]? {
        get { headerLines?.lines }
        set { headerLines = newValue.map(HeaderLines.init) }
    }

    enum CodingKeys: String, CodingKey {
        case status, headers, body, truncated
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Int.self, forKey: .status)
        body = try container.decode(String.self, forKey: .body)
        truncated = try container.decode(Bool.self, forKey: .truncated)
        headers = try container.decodeIfPresent([String].self, forKey: .headers)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(headers, forKey: .headers)
        try container.encode(body, forKey: .body)
        try container.encode(truncated, forKey: .truncated)
    }
}
