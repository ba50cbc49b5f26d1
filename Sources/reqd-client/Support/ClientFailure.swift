import ReqdProtocol

/// A failure that ends the client with a message and a status.
struct ClientFailure: Error, CustomStringConvertible {
    var message: String
    var status: Int32
    /// The daemon's error, when the failure is an error reply.
    var wire: WireError? = nil

    var description: String { message }
}
