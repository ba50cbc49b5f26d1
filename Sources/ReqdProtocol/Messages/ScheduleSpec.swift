/// `register-schedule`: a recurring job. Exactly one of `calendar`, `cron` and `every_ms` says
/// when it elapses; each elapse starts `request` as a request job of its own, or with no request
/// only tells the schedule's watchers.
public struct ScheduleSpec: Sendable, Hashable, Codable {
    /// An `OnCalendar=` expression (systemd.time(7)), which may end with its zone.
    public var calendar: String?
    /// A five-field cron expression, or `@daily` and the other `@` names.
    public var cron: String?
    /// A fixed interval in milliseconds, counted from the registration.
    public var everyMs: Int64?
    /// The zone for `calendar` and `cron`: an IANA name or `UTC`; the daemon's local zone if absent.
    public var tz: String?
    /// What each elapse sends, with its retry options, as `submit` takes it.
    public var request: RequestSpec?
    /// What an elapse does while the previous run is still going; `skip` if absent.
    public var overlap: ScheduleOverlap?
    /// What elapses missed during downtime or a suspend come to; `one` if absent.
    public var catchUp: ScheduleCatchUp?
    /// Each elapse waits a random time up to this many milliseconds.
    public var randomizedDelayMs: Int64?
    /// The random delay is drawn once from the job id and kept for every elapse.
    public var fixedDelay: Bool?
    public var key: String?
    public var scope: String?
    /// Skip the store; schedules are durable by default.
    public var ephemeral: Bool?
    public var bindConnection: Bool?
    public var follow: Bool?

    public init(
        calendar: String? = nil, cron: String? = nil, everyMs: Int64? = nil, tz: String? = nil, request: RequestSpec? = nil,
        overlap: ScheduleOverlap? = nil, catchUp: ScheduleCatchUp? = nil, randomizedDelayMs: Int64? = nil, fixedDelay: Bool? = nil,
        key: String? = nil, scope: String? = nil, ephemeral: Bool? = nil, bindConnection: Bool? = nil, follow: Bool? = nil
    ) {
        self.calendar = calendar
        self.cron = cron
        self.everyMs = everyMs
        self.tz = tz
        self.request = request
        self.overlap = overlap
        self.catchUp = catchUp
        self.randomizedDelayMs = randomizedDelayMs
        self.fixedDelay = fixedDelay
        self.key = key
        self.scope = scope
        self.ephemeral = ephemeral
        self.bindConnection = bindConnection
        self.follow = follow
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case calendar, cron
        case everyMs = "every_ms"
        case tz, request, overlap
        case catchUp = "catch_up"
        case randomizedDelayMs = "randomized_delay_ms"
        case fixedDelay = "fixed_delay"
        case key, scope, ephemeral
        case bindConnection = "bind_connection"
        case follow
    }
}
