/// `submit`: one request, sent until an attempt is answered, with the request-hygiene options.
///
/// On the wire the request's fields (`method`, `url`, …) sit at the top level beside the others.
public struct SubmitSpec: Sendable, Hashable {
    public var request: RequestSpec
    /// How long an identical request from the same caller returns this job instead of making a
    /// new one, in milliseconds, counted from this registration; 0 turns dedupe off for this request.
    public var dedupeWindowMs: Int64?
    /// Headers whose values count in the dedupe fingerprint (by name, any case); others do not.
    public var dedupeHeaders: [String]?
    /// The replace key: a new job with the same (owner, key) cancels this one, of any kind.
    public var key: String?
    /// An optional scope, used by `cancel --scope` and `watch --scope`.
    public var scope: String?
    /// Skip the store: the job is not restored after a restart.
    public var ephemeral: Bool?
    /// Cancel the job when the connection that registered it closes.
    public var bindConnection: Bool?
    /// Stream the job's events on this connection after the reply, tagged with this request's id.
    public var follow: Bool?
    /// A request that reports success (the outcome as JSON is its body), as a request job of its own.
    public var onSuccess: RequestSpec?
    /// A request that reports failure or dead-lettering, likewise.
    public var onFailure: RequestSpec?

    public init(
        request: RequestSpec, dedupeWindowMs: Int64? = nil, dedupeHeaders: [String]? = nil, key: String? = nil,
        scope: String? = nil, ephemeral: Bool? = nil, bindConnection: Bool? = nil, follow: Bool? = nil,
        onSuccess: RequestSpec? = nil, onFailure: RequestSpec? = nil
    ) {
        self.onSuccess = onSuccess
        self.onFailure = onFailure
        self.request = request
        self.dedupeWindowMs = dedupeWindowMs
        self.dedupeHeaders = dedupeHeaders
        self.key = key
        self.scope = scope
        self.ephemeral = ephemeral
        self.bindConnection = bindConnection
        self.follow = follow
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case dedupeWindowMs = "dedupe_window_ms"
        case dedupeHeaders = "dedupe_headers"
        case key, scope, ephemeral
        case bindConnection = "bind_connection"
        case follow
        case onSuccess = "on_success"
        case onFailure = "on_failure"
    }

    /// Every field name `submit` takes.
    static var fieldNames: [String] {
        RequestSpec.fieldNames + CodingKeys.allCases.map(\.stringValue)
    }
}

extension SubmitSpec: Codable {
    public init(from decoder: any Decoder) throws {
        request = try RequestSpec(fieldsFrom: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        dedupeWindowMs = try container.decodeIfPresent(Int64.self, forKey: .dedupeWindowMs)
        dedupeHeaders = try container.decodeIfPresent([String].self, forKey: .dedupeHeaders)
        key = try container.decodeIfPresent(String.self, forKey: .key)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
        ephemeral = try container.decodeIfPresent(Bool.self, forKey: .ephemeral)
        bindConnection = try container.decodeIfPresent(Bool.self, forKey: .bindConnection)
        follow = try container.decodeIfPresent(Bool.self, forKey: .follow)
        onSuccess = try container.decodeIfPresent(RequestSpec.self, forKey: .onSuccess)
        onFailure = try container.decodeIfPresent(RequestSpec.self, forKey: .onFailure)
    }

    public func encode(to encoder: any Encoder) throws {
        try request.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(dedupeWindowMs, forKey: .dedupeWindowMs)
        try container.encodeIfPresent(dedupeHeaders, forKey: .dedupeHeaders)
        try container.encodeIfPresent(key, forKey: .key)
        try container.encodeIfPresent(scope, forKey: .scope)
        try container.encodeIfPresent(ephemeral, forKey: .ephemeral)
        try container.encodeIfPresent(bindConnection, forKey: .bindConnection)
        try container.encodeIfPresent(follow, forKey: .follow)
        try container.encodeIfPresent(onSuccess, forKey: .onSuccess)
        try container.encodeIfPresent(onFailure, forKey: .onFailure)
    }
}
