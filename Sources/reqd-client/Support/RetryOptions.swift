import ArgumentParser
import Foundation
import ReqdProtocol

/// `--max-attempts`, `--backoff` and `--retry-on`: how a request job retries, for `submit` and for
/// each run of `register-schedule`.
struct RetryOptions: ParsableArguments {
    @Option(help: "Attempts at most for each request, the first included (default: the daemon's request.max_attempts, 8 as shipped).")
    var maxAttempts: Int?

    @Option(help: "The backoff before the second attempt and the largest one, such as 1s..5m; each wait is random up to the bound.")
    var backoff: String?

    @Option(
        help: "The answers worth another attempt, such as 408,425,429,5xx (the default) or 5xx,404. Transport errors are always retried.")
    var retryOn: String?

    /// Whether any of the options was given.
    var isGiven: Bool { maxAttempts != nil || backoff != nil || retryOn != nil }

    func validate() throws {
        if let maxAttempts, maxAttempts < 1 { throw ValidationError("--max-attempts must be at least 1") }
        if let backoff, parseBackoff(backoff) == nil {
            throw ValidationError("--backoff takes MIN..MAX or MIN, such as 1s..5m, each at least 1ms; got '\(backoff)'")
        }
    }

    /// Sets the retry fields of `request` from the options given.
    func apply(to request: inout RequestSpec) {
        let backoff = backoff.flatMap(parseBackoff)
        request.maxAttempts = maxAttempts
        request.backoffMinMs = backoff?.min
        request.backoffMaxMs = backoff?.max
        request.retryOn = retryOn.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
    }
}
