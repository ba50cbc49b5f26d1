/// One attempt of a request or poll job, as the job's attempt log keeps it.
///
/// A job keeps its last `AttemptInfo.kept` attempts. The last attempt's body is not repeated
/// here: it is the job's `result` body, cut as every result is.
public struct AttemptInfo: Codable, Sendable, Hashable {
    /// How many attempts a job's log keeps.
    public static let kept = 5
    /// The most bytes of response headers an attempt keeps, counting each `Name: value` line.
    public static let headerBytes = 2048

    /// The attempt's number, 1 for the first (a poll counts its requests).
    public var number: Int
    /// When the attempt was sent.
    public var startedAt: WallTime
    /// How long it took until its answer, its failure or its timeout.
    public var durationMs: Double
    /// The address the attempt connected to (`IP:port`, or the proxy it went through).
    public var address: String?
    public var status: Int?
    /// Why the attempt failed, when it did.
    public var error: String?
    private(set) var headerLines: HeaderLines?
    /// Whether headers were left out to stay within `headerBytes`.
    public var headersTruncated: Bool?

    public init(
        number: Int, startedAt: WallTime, durationMs: Double, address: String? = nil, status: Int? = nil,
        error: String? = nil, headers: [String]? = nil, headersTruncated: Bool? = nil
    ) {
        self.number = number
        self.startedAt = startedAt
        self.durationMs = durationMs
        self.address = address
        self.status = status
        self.error = error
        self.headersTruncated = headersTruncated
        self.headers = headers
    }

    /// The response headers as `Name: value` lines.
    public var headers: [String]? {
        get { headerLines?.lines }
        set { headerLines = newValue.map(HeaderLines.init) }
    }

    /// Holds the headers in the storage of `result`'s when both are the same lines, as the answer
    /// a job keeps and its last attempt's are: an ended job that keeps its log in memory then
    /// pays for its answer's headers once.
    public mutating func shareHeaders(with result: HTTPResult?) {
        guard let shared = result?.headerLines, headerLines == shared else { return }
        headerLines = shared
    }

    enum CodingKeys: String, CodingKey {
        case number
        case startedAt = "started_at"
        case durationMs = "duration_ms"
        case address, status, error, headers
        case headersTruncated = "headers_truncated"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        number = try container.decode(Int.self, forKey: .number)
        startedAt = try container.decode(WallTime.self, forKey: .startedAt)
        durationMs = try container.decode(Double.self, forKey: .durationMs)
        address = try container.decodeIfPresent(String.self, forKey: .address)
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        headersTruncated = try container.decodeIfPresent(Bool.self, forKey: .headersTruncated)
        headers = try container.decodeIfPresent([String].self, forKey: .headers)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encodeIfPresent(address, forKey: .address)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(headers, forKey: .headers)
        try container.encodeIfPresent(headersTruncated, forKey: .headersTruncated)
    }
}

extension AttemptInfo {
    /// The header lines that fit in `headerBytes`, in order, and whether any were left out.
    public static func keptHeaders(_ lines: [String]) -> (lines: [String], truncated: Bool) {
        var used = 0
        var kept: [String] = []
        for line in lines {
            used += line.utf8.count + 1
            guard used <= headerBytes + 1 else { return (kept, true) }
            kept.append(line)
        }
        return (kept, false)
    }
}
