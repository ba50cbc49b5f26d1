import NIOCore

extension TargetGate {
    /// The gate's last refusal per `host:port`, kept for `lifetime`, at most `capacity` targets.
    ///
    /// When one connection to a target is refused, the HTTP client fails every request waiting for
    /// that target with the same "proxy refused", so each of them reads the same, latest record.
    struct FailureLog {
        private var entries: [String: (failure: Failure, at: NIODeadline)] = [:]
        static let capacity = 1_024
        /// How long a refusal explains a failed request: far longer than the hop from the gate's
        /// answer to the client's report of it.
        static let lifetime = TimeAmount.seconds(30)

        mutating func record(_ failure: Failure, for key: String, now: NIODeadline) {
            if entries.count >= Self.capacity, entries[key] == nil {
                entries = entries.filter { now - $0.value.at < Self.lifetime }
                if entries.count >= Self.capacity { entries.remove(at: entries.startIndex) }
            }
            entries[key] = (failure, now)
        }

        func failure(for key: String, now: NIODeadline) -> Failure? {
            guard let entry = entries[key], now - entry.at < Self.lifetime else { return nil }
            return entry.failure
        }

        /// Targets with a record, expired ones included.
        var count: Int { entries.count }
    }
}
