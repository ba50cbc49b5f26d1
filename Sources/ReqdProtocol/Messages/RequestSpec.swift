/// An HTTP request as a client describes it: for `submit`, and for a countdown's `on_expire`.
public struct RequestSpec: Codable, Sendable, Hashable {
    /// The HTTP method (default `GET`).
    public var method: String?
    /// An absolute `http` or `https` URL.
    public var url: String
    /// Request headers as `Name: value` lines.
    public var headers: [String]?
    /// The request body, sent as given (as UTF-8).
    public var body: String?
    /// A body of any bytes, in base64 (RFC 4648); at most one of this and `body`.
    public var bodyBase64: String?
    /// How many attempts at most, the first included (default from the configuration).
    public var maxAttempts: Int?
    /// The backoff before the second attempt, in milliseconds; it doubles after each further failure.
    public var backoffMinMs: Int64?
    /// The longest backoff between two attempts, in milliseconds.
    public var backoffMaxMs: Int64?
    /// The answers worth another attempt, as statuses (`"404"`) or classes (`"5xx"`); default
    /// `["408", "425", "429", "5xx"]`. Transport errors and timeouts are always retried.
    public var retryOn: [String]?

    public init(
        method: String? = nil, url: String, headers: [String]? = nil, body: String? = nil, bodyBase64: String? = nil, maxAttempts: Int? = nil,
        backoffMinMs: Int64? = nil, backoffMaxMs: Int64? = nil, retryOn: [String]? = nil
    ) {
        self.retryOn = retryOn
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.bodyBase64 = bodyBase64
        self.maxAttempts = maxAttempts
        self.backoffMinMs = backoffMinMs
        self.backoffMaxMs = backoffMaxMs
    }

    /// The keys a request object takes.
    static let fieldNames = CodingKeys.allCases.map(\.stringValue)

    enum CodingKeys: String, CodingKey, CaseIterable {
        case method, url, headers, body
        case bodyBase64 = "body_base64"
        case maxAttempts = "max_attempts"
        case backoffMinMs = "backoff_min_ms"
        case backoffMaxMs = "backoff_max_ms"
        case retryOn = "retry_on"
    }
}

extension RequestSpec {
    /// Decodes a request object, refusing a key that a request does not take (`unknown_field`),
    /// as the hand decoder refuses it in a nested object: a typo never passes silently.
    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue)
        if let extra = keys.filter({ !Self.fieldNames.contains($0) }).min() {
            throw WireError(WireDecodingFailure.unknownKey(path: decoder.codingPath.map(\.stringValue), key: extra))
        }
        try self.init(fieldsFrom: decoder)
    }

    /// Decodes a request's fields and leaves any other key to the caller: `submit`'s line holds
    /// the request's fields beside its own.
    init(fieldsFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            method: try container.decodeIfPresent(String.self, forKey: .method), url: try container.decode(String.self, forKey: .url),
            headers: try container.decodeIfPresent([String].self, forKey: .headers), body: try container.decodeIfPresent(String.self, forKey: .body),
            bodyBase64: try container.decodeIfPresent(String.self, forKey: .bodyBase64),
            maxAttempts: try container.decodeIfPresent(Int.self, forKey: .maxAttempts),
            backoffMinMs: try container.decodeIfPresent(Int64.self, forKey: .backoffMinMs),
            backoffMaxMs: try container.decodeIfPresent(Int64.self, forKey: .backoffMaxMs),
            retryOn: try container.decodeIfPresent([String].self, forKey: .retryOn))
    }
}
