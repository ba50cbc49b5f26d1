import ReqdProtocol

/// What a connection still owes its client: replies not yet written and event streams not yet ended.
///
/// A client may close its write side after its last request (`socat`, `nc -U`, `echo … |`); the
/// connection then stays open until this is idle. A job's stream (`watch` of one job, or
/// `follow: true` on a registration) ends with the job's terminal event; a scope's stream ends only
/// with `unwatch`, so a half-closed scope watcher keeps its connection until it closes it. Kept on
/// the channel's event loop, fed with the requests handed to the scheduler and the lines written back.
struct ConnectionActivity {
    /// What a stream follows.
    enum Target: Hashable {
        case job(String)
        case scope
    }

    /// Requests handed over whose reply has not been written.
    private(set) var unanswered = 0
    /// Requests that start a stream if their reply says so (`watch`, `follow: true`), by id, with a count
    /// because a client may reuse an id.
    private var opening: [RequestID: Int] = [:]
    /// Error replies to lines that were not requests, not yet written, by id.
    private var refusedIDs: [RequestID: Int] = [:]
    /// The event streams running, by the request that started them: what each follows, with a
    /// count because a client may reuse an id. Keyed so that a stream's end costs one lookup
    /// however many streams a connection has (a client may follow thousands of jobs).
    private(set) var streams: [RequestID: [Target: Int]] = [:]

    /// Nothing owed: no reply outstanding and no stream running.
    var isIdle: Bool { unanswered == 0 && streams.isEmpty }

    /// A request went to the scheduler.
    mutating func handedOver(_ request: Request) {
        unanswered += 1
        switch request.body {
        case .unwatch(let unwatch):
            streams[unwatch.watch] = nil
        default:
            if Self.mayStream(request.body) { opening[request.id, default: 0] += 1 }
        }
    }

    /// A line that was not a request is answered with an error, which the connection owes like any reply.
    mutating func refused(_ id: RequestID?) {
        unanswered += 1
        if let id { refusedIDs[id, default: 0] += 1 }
    }

    /// A reply or event went out.
    mutating func wrote(_ message: OutboundMessage) {
        switch message {
        case .response(let response):
            unanswered = max(0, unanswered - 1)
            guard let id = response.id else { return }
            if case .failure = response.outcome, let refused = refusedIDs[id] {
                // An error reply to a bad line that reused the id of a request whose stream may still open.
                refusedIDs[id] = refused > 1 ? refused - 1 : nil
                return
            }
            guard !opening.isEmpty, let waiting = opening[id] else { return }
            opening[id] = waiting > 1 ? waiting - 1 : nil
            guard case .success(let body) = response.outcome else { return }
            switch body {
            case .watching(let watch) where watch.streaming:
                streams[id, default: [:]][watch.job.map { .job($0.id) } ?? .scope, default: 0] += 1
            case .registered(let registered) where registered.job.state == .active:
                streams[id, default: [:]][.job(registered.job.id), default: 0] += 1
            default:
                break
            }
        case .event(let message):
            guard !streams.isEmpty, message.event.type.isTerminal,
                var targets = streams[message.watch], targets[.job(message.event.job)] != nil
            else { return }
            // Every stream of that job under that tag ends with it, as the scheduler ends them all.
            targets[.job(message.event.job)] = nil
            streams[message.watch] = targets.isEmpty ? nil : targets
        }
    }

    private static func mayStream(_ body: RequestBody) -> Bool {
        switch body {
        case .watch: true
        case .registerCountdown(let spec): spec.follow == true
        case .registerPoll(let spec): spec.follow == true
        case .submit(let spec): spec.follow == true
        case .registerGroup(let spec): spec.follow == true
        case .registerSchedule(let spec): spec.follow == true
        case .hello, .retry, .delete, .cancel, .status, .list, .unwatch, .wait, .metrics, .pause, .resume: false
        }
    }
}
