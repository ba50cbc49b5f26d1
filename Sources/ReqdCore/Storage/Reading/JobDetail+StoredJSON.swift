import ReqdProtocol

extension JobDetail: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        try self.init(stored: object, counters: .none)
    }

    /// The detail `text` holds, with `known` as its kind's counters; nil where `JSONDecoder` would
    /// fail.
    package init?(storedJSON text: String, counters known: JobProgress.Counters) {
        var detail: JobDetail?
        guard WireObject.opening(text, { object throws(WireDecodingFailure) in detail = try JobDetail(stored: object, counters: known) }),
            let detail
        else { return nil }
        self = detail
    }

    /// Reads a detail whose kind's counters its row's own columns already gave (`known`): the
    /// detail's copy, which those columns hold over, is then not read at all. A restart reads
    /// every row's counters from its columns, and reading them twice was 7% of it.
    init(stored object: WireObject, counters known: JobProgress.Counters) throws(WireDecodingFailure) {
        var poll: PollCounters?, delivery: DeliveryCounters?, group: GroupCounters?, schedule: ScheduleCounters?
        switch known {
        case .none: break
        case .poll(let counters): poll = counters
        case .delivery(let counters): delivery = counters
        case .group(let counters): group = counters
        case .schedule(let counters): schedule = counters
        }
        self.init(
            poll: try object.optionalObject("poll").map { object throws(WireDecodingFailure) in try PollRecord(stored: object, counters: poll) },
            request: try object.optionalObject("request").map { object throws(WireDecodingFailure) in
                try DeliveryRecord(stored: object, counters: delivery)
            },
            group: try object.optionalObject("group").map { object throws(WireDecodingFailure) in try GroupRecord(stored: object, counters: group) },
            schedule: try object.optionalObject("schedule").map { object throws(WireDecodingFailure) in
                try ScheduleRecord(stored: object, counters: schedule)
            },
            onExpire: try object.optionalObject("on_expire", as: DeliverySettings.self), spawned: try object.optionalString("spawned"),
            result: try object.optionalObject("result", as: HTTPResult.self), error: try object.optionalString("error"))
    }
}
