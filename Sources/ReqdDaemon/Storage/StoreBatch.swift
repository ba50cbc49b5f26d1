import ReqdCore

/// Changes from one scheduler turn, and the barriers to report once they are committed.
public struct StoreBatch: Sendable {
    public var changes: [StoreChange] = []
    public var barriers: [CommitToken] = []
    /// Notices for other daemons sharing the store (`ClusterNotice` payloads), sent in the
    /// transaction, before its changes, so that they arrive when it commits and in order.
    var notices: [String] = []

    public init() {}

    public var isEmpty: Bool { changes.isEmpty && barriers.isEmpty && notices.isEmpty }
}
