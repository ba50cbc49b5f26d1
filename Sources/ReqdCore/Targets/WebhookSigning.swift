/// What the executor needs to sign one request (Standard Webhooks 1.0): the message id and the
/// secrets. The timestamp is the executor's, taken as each attempt goes out.
public struct WebhookSigning: Sendable, Hashable {
    /// `webhook-id`: a request job's id, the same on every attempt; a group member's adds
    /// `-INDEX` and a poll's `-POLL` (its number), so each is a message of its own.
    public var id: String
    public var secrets: SigningSecrets

    public init(id: String, secrets: SigningSecrets) {
        self.id = id
        self.secrets = secrets
    }
}
