/// The dedupe fingerprint of a request: who asked, and what would go on the wire.
///
/// Owner, method, normalized URL, the body, and the values of the headers the caller named.
/// Entries are compared whole (hashed with Swift's `Hasher`, then checked field by field), so
/// two different requests never collide; the body is the job's own array, shared, not copied.
struct DedupeKey: ShardKey, Sendable {
    var owner: UInt32
    var method: String
    var url: String
    var body: [UInt8]?
    /// The named headers, names in lower case, sorted by name and then value.
    var headers: [HTTPHeader]

    init(owner: UInt32, request: HTTPRequestSpec, headerNames: [String]) {
        self.owner = owner
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
