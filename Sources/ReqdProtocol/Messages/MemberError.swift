/// A member that did not succeed, and why.
public struct MemberError: Codable, Sendable, Hashable {
    public var index: Int
    public var state: MemberState
    public var error: String

    public init(index: Int, state: MemberState, error: String) {
        self.index = index
        self.state = state
        self.error = error
    }
}
