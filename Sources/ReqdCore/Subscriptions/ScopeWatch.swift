/// Where a scope's watchers are kept: by scope and by whose jobs they see, so that an event
/// reaches its watchers in one or two lookups, and one user's watches cost another's events nothing.
struct ScopeWatch: Hashable, Sendable {
    var scope: String
    /// Only this owner's jobs; nil (root) for every owner's.
    var owner: UInt32?
}
