/// Where a target's circuit breaker stands.
public enum BreakerState: String, Codable, Sendable, Hashable, CaseIterable {
    /// Requests go as usual, and their ends are counted.
    case closed
    /// Nothing is sent to the target until `open_until`.
    case open
    /// One probe request goes; its end closes the breaker or opens it again.
    case halfOpen = "half_open"
}
