import ReqdProtocol

/// One target's circuit breaker: closed, open or half-open, from the ends of its requests.
///
/// Closed, it counts the requests that end and those that fail (no answer, a timeout, a 5xx) by
/// second over the window; when at least `minRequests` ended there and at least `failureRatio` of
/// them failed, it opens. Open, nothing is sent until `openForNanos` has passed; then the next
/// request to go is the probe, and the breaker is half-open while it is out. The probe's success
/// closes it with a fresh window; its failure opens it again. A probe that ends without an answer
/// to judge (cancelled, refused by the policy) lets the next request probe instead.
///
/// Requests that were out when it opened end while it is open or half-open; they are not counted.
struct CircuitBreaker: Sendable {
    /// How a request's end counts.
    enum Verdict: Sendable, Equatable {
        case success
        case failure(String)
        /// Not judged: cancelled, refused before it went, or given back.
        case none

        /// How an end the executor reported counts: no answer or a 5xx fails. A refusal by the
        /// target policy sent nothing; an unreachable network (no route, or the daemon out of
        /// descriptors) is the network hold's to handle, not a sign of the target's health; and an
        /// answer reqd would not take (too large, or not decodable) came from a server that answers.
        init(_ outcome: HTTPOutcome) {
            switch outcome {
            case .response(let answer): self = answer.status >= 500 ? .failure("the server answered \(answer.status)") : .success
            case .failure(let why): self = .failure(why)
            case .unreachable, .denied, .rejected: self = .none
            }
        }
    }

    /// A change of state, for the notice log and the metrics.
    enum Transition: Sendable, Equatable {
        /// The window's figures crossed the ratio.
        case opened(failures: Int, requests: Int)
        /// The open time ran out and a probe went.
        case probing
        /// The probe succeeded.
        case closed
        /// The probe failed.
        case reopened(String)

        /// The state the breaker went to.
        var state: BreakerState {
            switch self {
            case .opened, .reopened: .open
            case .probing: .halfOpen
            case .closed: .closed
            }
        }
    }

    private(set) var state = BreakerState.closed
    /// When the state last changed; nil while it has stayed closed.
    private(set) var since: Instant?
    /// Until when it is open.
    private(set) var openUntil: Instant?
    /// The request out as the probe while half-open.
    private var probe: (job: JobID, attempt: UInt32)?
    /// Requests ended and failed in each second of the window, by second since the boot-time epoch.
    private var window: [(second: Int64, requests: Int, failures: Int)] = []
    /// The window's length in whole seconds, as the last counted end saw the settings.
    private var windowSeconds: Int64 = 60
    /// Counts the openings and closings, so that a request sent before one is not counted after it
    /// (`ended`): a request out when it opened, answered after the probe closed it, says nothing of now.
    private(set) var generation: UInt32 = 0

    /// Whether the breaker has nothing to remember: closed with an empty window.
    var isIdle: Bool { state == .closed && window.isEmpty }

    /// The state as `status` shows it: open past its time is half-open, waiting for a request to
    /// go as the probe.
    func state(at now: Instant) -> BreakerState {
        state == .open && openUntil.map { $0 <= now } == true ? .halfOpen : state
    }

    /// Forgets the seconds that left the window.
    mutating func age(at now: Instant) {
        let first = Self.second(now) - windowSeconds
        if let oldest = window.first, oldest.second <= first { window.removeAll { $0.second <= first } }
    }

    /// Requests and failures in the window as of `now`.
    func figures(_ settings: BreakerSettings, at now: Instant) -> (requests: Int, failures: Int) {
        let first = Self.second(now) - max(1, settings.windowNanos / 1_000_000_000)
        return window.reduce(into: (0, 0)) { sum, entry in
            guard entry.second > first else { return }
            sum.0 += entry.requests
            sum.1 += entry.failures
        }
    }

    /// Whether a request may go now: closed, or the open time is over and no probe is out (then
    /// it may go as the probe); otherwise when to ask again (nil: when the probe ends).
    func admits(at now: Instant) -> (go: Bool, until: Instant?) {
        switch state(at: now) {
        case .closed: (true, nil)
        case .open: (false, openUntil)
        case .halfOpen: probe == nil ? (true, nil) : (false, nil)
        }
    }

    /// A request to the target went on the wire: past the open time, with no probe out, it is
    /// the probe. Only the first probe after an opening is a change of state.
    mutating func sent(_ job: JobID, attempt: UInt32, at now: Instant) -> Transition? {
        guard state(at: now) == .halfOpen, probe == nil else { return nil }
        probe = (job, attempt)
        guard state == .open else { return nil }
        state = .halfOpen
        since = now
        openUntil = nil
        return .probing
    }

    /// A request to the target ended as `verdict` says; returns the change of state, if any.
    mutating func ended(
        _ job: JobID, attempt: UInt32, sentIn sentGeneration: UInt32, _ verdict: Verdict, settings: BreakerSettings, at now: Instant
    ) -> Transition? {
        switch state {
        case .closed:
            guard sentGeneration == generation else { return nil }
            let second = Self.second(now)
            let failed: Int
            switch verdict {
            case .success: failed = 0
            case .failure: failed = 1
            case .none: return nil
            }
            windowSeconds = max(1, settings.windowNanos / 1_000_000_000)
            age(at: now)
            if let last = window.indices.last, window[last].second == second {
                window[last].requests += 1
                window[last].failures += failed
            } else {
                window.append((second, 1, failed))
            }
            // A success can bring the window to `minRequests` with the ratio already met.
            let (requests, failures) = figures(settings, at: now)
            guard failures > 0, requests >= settings.minRequests, Double(failures) / Double(requests) >= settings.failureRatio else {
                return nil
            }
            open(settings, at: now)
            return .opened(failures: failures, requests: requests)
        case .halfOpen:
            guard let probe, probe.job == job, probe.attempt == attempt else { return nil }
            switch verdict {
            case .success:
                state = .closed
                since = now
                self.probe = nil
                generation &+= 1
                return .closed
            case .failure(let why):
                open(settings, at: now)
                return .reopened(why)
            case .none:
                self.probe = nil
                return nil
            }
        case .open:
            return nil
        }
    }

    /// Job `job` ended: if its request was the probe, the next request to go probes instead.
    mutating func forget(_ job: JobID) {
        if probe?.job == job { probe = nil }
    }

    /// The settings changed (a reload): an open breaker's open time counts from its opening with
    /// the new `breaker_open_for`, so a shorter one ends it sooner.
    mutating func openForChanged(_ settings: BreakerSettings) {
        guard state == .open, let since else { return }
        openUntil = since.advanced(by: settings.openForNanos)
    }

    private mutating func open(_ settings: BreakerSettings, at now: Instant) {
        state = .open
        since = now
        openUntil = now.advanced(by: settings.openForNanos)
        probe = nil
        window = []
        generation &+= 1
    }

    private static func second(_ instant: Instant) -> Int64 { instant.nanoseconds / 1_000_000_000 }
}
