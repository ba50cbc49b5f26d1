import ReqdProtocol

/// The checks every registration shares, against the configured limits.
extension SchedulerConfiguration {
    /// Validates a key or scope: not empty, not too long, no control characters.
    func validateName(_ field: String, _ value: String) throws(SchedulerError) {
        guard !value.isEmpty else { throw SchedulerError(.badField, "'\(field)' must not be empty") }
        guard value.utf8.count <= maxNameBytes else {
            throw SchedulerError(.badField, "'\(field)' is longer than \(maxNameBytes) bytes")
        }
        // General category Cc is exactly U+0000–U+001F and U+007F–U+009F; a table lookup per
        // scalar cost 2% of a registration.
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw SchedulerError(.badField, "'\(field)' must not contain control characters")
        }
    }

    /// Validates what every registration may carry: its key, its scope, and whether it is bound to
    /// its connection. A bound job is never stored (a restart closes every connection), so binding
    /// a job that asks to be durable is a conflict.
    func validateRegistration(key: String?, scope: String?, ephemeral: Bool?, bindConnection: Bool?) throws(SchedulerError) {
        if let key { try validateName("key", key) }
        if let scope { try validateName("scope", scope) }
        if bindConnection == true, ephemeral == false {
            throw SchedulerError(
                .conflictingFields, "a job bound to its connection is never stored; drop 'ephemeral: false' or 'bind_connection'")
        }
    }

    /// A positive duration field in milliseconds, as nanoseconds within the configured bounds.
    func milliseconds(_ field: String, _ value: Int64, atLeast minimum: Int64) throws(SchedulerError) -> Int64 {
        let (nanos, overflow) = value.multipliedReportingOverflow(by: 1_000_000)
        guard value > 0, !overflow, nanos >= minimum, nanos <= maxDurationNanos else {
            throw SchedulerError(
                .badDuration,
                "'\(field)' must be between \(max(1, minimum / 1_000_000)) and \(maxDurationNanos / 1_000_000) ms, got \(value)"
            )
        }
        return nanos
    }

    /// A request a client described, validated, with its body (text, or any bytes in base64)
    /// within the configured limit and, when its host is a literal address, the target policy
    /// allowing it. A host name is checked at each attempt instead, against every address it then
    /// resolves to. `field` prefixes field names in errors.
    func validatedRequest(
        method: String?, url: String, headers: [String]?, body: String?, bodyBase64: String?, field: String
    ) throws(SchedulerError) -> HTTPRequestSpec {
        var bytes = body.map { Array($0.utf8) }
        if let bodyBase64 {
            guard body == nil else {
                throw SchedulerError(.conflictingFields, "give either '\(field)body' or '\(field)body_base64', not both")
            }
            guard let decoded = Base64.decode(bodyBase64) else {
                throw SchedulerError(.badField, "'\(field)body_base64' is not base64 (RFC 4648, with or without padding)")
            }
            bytes = decoded
        }
        let request = try HTTPRequestSpec.validated(method: method, url: url, headers: headers, body: bytes)
        if targetPolicy.isActive {
            let host = RequestURL.host(url)
            if let address = IPAddress(host), let denial = targetPolicy.denial(host: host, addresses: [address]) {
                throw SchedulerError(.deniedTarget, "the target policy refuses '\(url.prefix(200))': \(denial)")
            }
        }
        if let body = request.body, body.count > maxRequestBodyBytes {
            throw SchedulerError(.badField, "'\(field)body' is larger than \(maxRequestBodyBytes) bytes")
        }
        return request
    }
}
