import ReqdProtocol

/// The kind-specific part of a stored job, as JSON in its row's `detail`. The parts that change
/// after the insert (the answer, the error, the spawned job, the counters) also have columns of
/// their own, which hold over this once a retry or an end has written them (`JobProgress`).
public struct JobDetail: Sendable, Hashable, Codable {
    /// A poll job's settings and counters.
    public var poll: PollRecord?
    /// A request job's settings and attempts.
    public var request: DeliveryRecord?
    /// A group's members and where each is.
    public var group: GroupRecord?
    /// A schedule's rule, options and where it is.
    public var schedule: ScheduleRecord?
    /// A countdown's `on_expire` request.
    public var onExpire: DeliverySettings?
    /// The request job a countdown's expiry started.
    public var spawned: String?
    /// The answer that ended the job.
    public var result: HTTPResult?
    /// Why the job failed or timed out.
    public var error: String?

    public init(
        poll: PollRecord? = nil, request: DeliveryRecord? = nil, group: GroupRecord? = nil, schedule: ScheduleRecord? = nil, onExpire: DeliverySettings? = nil, spawned: String? = nil,
        result: HTTPResult? = nil, error: String? = nil
    ) {
        self.poll = poll
        self.request = request
        self.group = group
        self.schedule = schedule
        self.onExpire = onExpire
        self.spawned = spawned
        self.result = result
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case poll, request, group, schedule
        case onExpire = "on_expire"
        case spawned, result, error
    }

    /// Whether there is nothing to store.
    public var isEmpty: Bool {
        poll == nil && request == nil && group == nil && schedule == nil && onExpire == nil && spawned == nil && result == nil && error == nil
    }
}
