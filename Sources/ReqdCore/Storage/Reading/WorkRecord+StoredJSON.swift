import ReqdProtocol

extension WorkRecord: StoredJSONReadable where Settings: StoredJSONReadable, Counters: StoredJSONReadable {
    /// Settings and counters share one flat object, as `encode(to:)` writes them.
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(settings: try Settings(stored: object), counters: try Counters(stored: object))
    }
}
