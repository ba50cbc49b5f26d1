import NIOCore

extension TargetGate {
    /// The gate's refusals not yet read, per `host:port`, oldest first; at most `capacity` in all.
    ///
    /// Each refusal is read once, by the request it refused (or, when two to one target are
    /// refused together, by one of the two: the reasons are the same). Past the capacity the
    /// oldest are dropped, so refusals nobody reads (their request was aborted) cannot pile up.
    struct FailureLog {
        private var entries: [String: CircularBuffer<(sequence: UInt64, failure: Failure)>] = [:]
        /// Every entry's key and sequence number, oldest first.
        private var order = CircularBuffer<(key: String, sequence: UInt64)>()
        private var nextSequence: UInt64 = 0
        static let capacity = 1_024

        mutating func append(_ failure: Failure, for key: String) {
            entries[key, default: []].append((nextSequence, failure))
            order.append((key, nextSequence))
            nextSequence += 1
            while order.count > Self.capacity, let oldest = order.popFirst() {
                guard entries[oldest.key]?.first?.sequence == oldest.sequence else { continue }
                entries[oldest.key]?.removeFirst()
                if entries[oldest.key]?.isEmpty == true { entries[oldest.key] = nil }
            }
        }

        mutating func take(for key: String) -> Failure? {
            guard let entry = entries[key]?.popFirst() else { return nil }
            if entries[key]?.isEmpty == true { entries[key] = nil }
            return entry.failure
        }

        /// Refusals held.
        var count: Int { entries.values.reduce(0) { $0 + $1.count } }
    }
}
