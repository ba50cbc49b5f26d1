import ReqdProtocol

extension WorkRecord: StoredJSONReadable where Settings: StoredJSONReadable, Counters: StoredJSONReadable {
    /// Settings and counters share one flat object, as `encode(to:)` writes them.
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        try self.init(stored: object, counters: nil)
    }

    /// Reads the settings, and the counters unless `known` gives them.
    init(stored object: WireObject, counters known: Counters?) throws(WireDecodingFailure) {
        let settings = try Settings(stored: object)
        if let known {
            self.init(settings: settings, counters: known)
        } else {
            self.init(settings: settings, counters: try Counters(stored: object))
        }
    }
}
