/// Who is on the other end of a connection, from SO_PEERCRED.
public struct Peer: Hashable, Sendable {
    public var uid: UInt32
    public var pid: Int32

    public init(uid: UInt32, pid: Int32) {
        self.uid = uid
        self.pid = pid
    }

    /// Root sees and cancels every job; anyone else only their own.
    public func mayAccess(ownerUID: UInt32) -> Bool { uid == 0 || uid == ownerUID }
}
