/// The answer that ended a job: its HTTP status, its headers for request jobs, and the start of its body.
public struct HTTPResult: Codable, Sendable, Hashable {
    public var status: Int
    /// The headers joined into one string, a line each: an ended request job is kept for its
    /// retention, and one allocation for its headers costs a third of one per header. A response
    /// header cannot hold a line break, so the lines split back as they were.
    private var headerLines: String?
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
        get {
            headerLines.map { $0.isEmpty ? [] : $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        }
        set { headerLines = newValue.map { $0.joined(separator: "\n") } }
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
