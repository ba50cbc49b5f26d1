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

    /// An event stream the client asked for, named by the request that started it.
    struct Stream: Hashable {
        var tag: RequestID
        var target: Target
    }

    /// Requests handed over whose reply has not been written.
    private(set) var unanswered = 0
    /// Requests that start a stream if their reply says so (`watch`, `follow: true`), by id, with a count
    /// because a client may reuse an id.
    private var opening: [RequestID: Int] = [:]
    private(set) var streams: [Stream] = []

    /// Nothing owed: no reply outstanding and no stream running.
    var isIdle: Bool { unanswered == 0 && streams.isEmpty }

    /// A request went to the scheduler.
    mutating func handedOver(_ request: Request) {
        unanswered += 1
        switch request.body {
        case .unwatch(let unwatch):
            streams.removeAll { $0.tag == unwatch.watch }
        default:
            if Self.mayStream(request.body) { opening[request.id, default: 0] += 1 }
        }
    }

    /// A line the scheduler sent went out.
    mutating func wrote(_ message: OutboundMessage) {
        switch message {
        case .response(let response):
            guard let id = response.id else { return }
            unanswered = max(0, unanswered - 1)
            guard !opening.isEmpty, let waiting = opening[id] else { return }
            opening[id] = waiting > 1 ? waiting - 1 : nil
            guard case .success(let body) = response.outcome else { return }
            switch body {
            case .watching(let watch) where watch.streaming:
                streams.append(Stream(tag: id, target: watch.job.map { .job($0.id) } ?? .scope))
            case .registered(let registered) where registered.job.state == .active:
                streams.append(Stream(tag: id, target: .job(registered.job.id)))
            default:
                break
            }
        case .event(let message):
            guard !streams.isEmpty, message.event.type.isTerminal else { return }
            let ended = Stream(tag: message.watch, target: .job(message.event.job))
            streams.removeAll { $0 == ended }
        }
    }

    private static func mayStream(_ body: RequestBody) -> Bool {
        switch body {
        case .watch: true
        case .registerCountdown(let spec): spec.follow == true
        case .registerPoll(let spec): spec.follow == true
        case .submit(let spec): spec.follow == true
        case .registerGroup(let spec): spec.follow == true
        case .hello, .retry, .cancel, .status, .list, .unwatch, .wait: false
        }
    }
}
