import ReqdProtocol

extension JobProgress.Counters {
    /// The counters a row's `counters` column holds, read as `kind`'s; nil when `kind` keeps none
    /// there (countdowns; polls have columns of their own) or where `JSONDecoder` would fail.
    ///
    /// Here, beside the readers, so that each is specialized for its counters (see
    /// `WireObject.reading(_:as:)`).
    package init?(storedJSON text: String, of kind: JobKind) {
        switch kind {
        case .request: guard let counters = WireObject.reading(text, as: DeliveryCounters.self) else { return nil }; self = .delivery(counters)
        case .group: guard let counters = WireObject.reading(text, as: GroupCounters.self) else { return nil }; self = .group(counters)
        case .schedule: guard let counters = WireObject.reading(text, as: ScheduleCounters.self) else { return nil }; self = .schedule(counters)
        case .countdown, .poll: return nil
        }
    }
}
