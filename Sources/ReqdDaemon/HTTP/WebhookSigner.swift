import Crypto
import Foundation
import NIOHTTP1
import ReqdCore

/// Signs a request the Standard Webhooks 1.0 way: `webhook-id`, `webhook-timestamp` and
/// `webhook-signature`, the last `v1,` and the base64 of HMAC-SHA256 over `id.timestamp.body`,
/// one such signature for each secret, separated by spaces.
enum WebhookSigner {
    /// Adds the three headers to `headers` for a request with `body`, sent at `timestamp` (seconds
    /// since the epoch). Headers of those names that the request set itself are replaced.
    static func sign(_ headers: inout HTTPHeaders, body: [UInt8]?, signing: WebhookSigning, timestamp: Int64) {
        var content = Array("\(signing.id).\(timestamp).".utf8)
        content += body ?? []
        let signatures = signing.secrets.keys.map { key in
            let mac = HMAC<SHA256>.authenticationCode(for: content, using: SymmetricKey(data: key))
            return "v1," + Data(mac).base64EncodedString()
        }
        headers.replaceOrAdd(name: "webhook-id", value: signing.id)
        headers.replaceOrAdd(name: "webhook-timestamp", value: String(timestamp))
        headers.replaceOrAdd(name: "webhook-signature", value: signatures.joined(separator: " "))
    }
}
