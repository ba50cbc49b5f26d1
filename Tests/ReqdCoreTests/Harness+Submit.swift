import ReqdProtocol
import Testing
@testable import ReqdCore

/// A `submit` of a JSON order, with the hygiene options the submit suites vary.
func submitSpec(
    method: String = "POST", url: String = "https://api.example/orders", body: String? = "{\"sku\":7}",
    headers: [String]? = nil, maxAttempts: Int? = nil, window: Int64? = nil, dedupeHeaders: [String]? = nil,
    key: String? = nil, scope: String? = nil, ephemeral: Bool? = nil, bind: Bool? = nil, follow: Bool = true
) -> SubmitSpec {
    SubmitSpec(
        request: RequestSpec(
            method: method, url: url, headers: headers, body: body, maxAttempts: maxAttempts, backoffMinMs: 1_000,
            backoffMaxMs: 60_000),
        dedupeWindowMs: window, dedupeHeaders: dedupeHeaders, key: key, scope: scope, ephemeral: ephemeral,
        bindConnection: bind, follow: follow)
}

extension Harness {
    /// Submits a request and returns the reply and the effects.
    mutating func submitted(_ spec: SubmitSpec, connection: UInt64 = 1) -> (reply: RegisterResult, effects: [SchedulerEffect]) {
        let effects = request(.submit(spec), connection: connection)
        guard let result = effects.replies.first?.result, case .success(.registered(let reply)) = result else {
            fatalError("submit failed: \(effects)")
        }
        return (reply, effects)
    }
}
