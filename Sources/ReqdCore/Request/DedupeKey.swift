/// The dedupe fingerprint of a request: who asked, what would go on the wire, and the job it
/// would make.
///
/// Owner, method, normalized URL, the body, and the values of the headers the caller named; and
/// the job's key, scope, durability and bound connection, so that a duplicate never answers with
/// a job less durable than asked for, one that a cancel by the caller's key or scope would miss,
/// or one that another client's exit ends (or that outlives the caller's own).
/// Entries are compared whole (hashed with Swift's `Hasher`, then checked field by field), so
/// two different requests never collide; the body is the job's own array, shared, not copied.
struct DedupeKey: ShardKey, Sendable {
    var owner: UInt32
    var method: String
    var url: String
    var body: [UInt8]?
    /// The named headers, names in lower case, sorted by name and then value.
    var headers: [HTTPHeader]
    var key: String?
    var scope: String?
    var ephemeral: Bool
    /// The connection the job is bound to (`bind_connection`), if any.
    var boundTo: ConnectionID?

    init(
        owner: UInt32, request: HTTPRequestSpec, headerNames: [String], key: String?, scope: String?, ephemeral: Bool,
        boundTo: ConnectionID?
    ) {
        self.owner = owner
        self.key = key
        self.scope = scope
        self.ephemeral = ephemeral
        self.boundTo = boundTo
        method = request.method
        url = RequestURL.normalized(request.url)
        body = request.body
        let named = Set(headerNames.map { $0.lowercased() })
        headers = request.headers.compactMap { header in
            let name = header.name.lowercased()
            return named.contains(name) ? HTTPHeader(name: name, value: header.value) : nil
        }.sorted { ($0.name, $0.value) < ($1.name, $1.value) }
    }
}
