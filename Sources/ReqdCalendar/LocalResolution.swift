/// What one wall-clock time is in a zone: one instant, two (the hour a fall-back repeats), or none
/// (a spring-forward gap), in which case the instant the gap ends.
public enum LocalResolution: Hashable, Sendable {
    /// Microseconds since the epoch.
    case unique(Int64)
    /// The first and the second occurrence, microseconds since the epoch.
    case repeated(Int64, Int64)
    /// The wall-clock time does not exist; the gap ends (the clocks jump) at this instant.
    case skipped(gapEnd: Int64)
}
