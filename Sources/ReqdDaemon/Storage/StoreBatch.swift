import ReqdCore

/// Changes from one scheduler turn, and the barriers to report once they are committed.
public struct StoreBatch: Sendable {
    public var changes: [StoreChange] = []
    public var barriers: [CommitToken] = []

    public init() {}

    public var isEmpty: Bool { changes.isEmpty && barriers.isEmpty }
}
