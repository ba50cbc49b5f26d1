import CoreMetrics
import Prometheus
import ReqdCore
import ReqdProtocol
import Synchronization

/// The daemon's counters, histograms and gauges: recorded through swift-metrics, kept in a
/// swift-prometheus registry of the daemon's own, and written out in the Prometheus text format.
///
/// Every metric is made once, here, with its help text, so the hot paths only bump an atomic or
/// take one uncontended lock. The registry is per daemon, not the process-wide `MetricsSystem`: tests
/// run many daemons in one process, and a library must not bootstrap the process's metrics.
/// The gauges (jobs by kind and state, held jobs, connections) are set from the scheduler's counts
/// when the text is written, not on every change.
public final class DaemonMetrics: Sendable {
    /// The registry the text is written from.
    public let registry: PrometheusCollectorRegistry
    private let registrations: [CoreMetrics.Counter]
    /// Only request jobs and groups retry.
    private let retries: [JobKind: CoreMetrics.Counter]
    private let ended: [[CoreMetrics.Counter]]
    private let holds: CoreMetrics.Counter
    /// By the state a breaker went to, in `BreakerState.allCases` order.
    private let breakerTransitions: [CoreMetrics.Counter]
    private let deadLetters: CoreMetrics.Counter
    private let attempts: CoreMetrics.Counter
    private let answers: [CoreMetrics.Counter]
    private let httpDuration: CoreMetrics.Timer
    private let commitDuration: CoreMetrics.Timer
    private let lateness: CoreMetrics.Timer
    private let jobs: [[Meter]]
    private let heldJobs: Meter
    private let unreachableTargets: Meter
    private let connections: Meter
    /// Held while the gauges are set and the text written, so that two writers (a scrape and a
    /// `metrics` request) never mix their gauges.
    private let writing = Mutex(())

    /// The answer classes `reqd_http_responses_total` counts, by `class`; `error` is no answer at all.
    static let answerClasses = ["1xx", "2xx", "3xx", "4xx", "5xx", "error"]

    /// Creates every metric in a new registry.
    public init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        let factory = PrometheusMetricsFactory(registry: registry)
        let kinds = JobKind.allCases
        // Full names, such as `reqd_registrations_total`, go in `metricName`; the unit is part of it.
        func describe(_ name: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
        }
        func counter(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> CoreMetrics.Counter {
            CoreMetrics.Counter(
                label: name, dimensions: labels, handler: registry.makeCounter(descriptor: describe(name, help), labels: labels),
                factory: factory)
        }
        func meter(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> Meter {
            Meter(
                label: name, dimensions: labels, handler: registry.makeGauge(descriptor: describe(name, help), labels: labels),
                factory: factory)
        }
        func timer(_ name: String, _ help: String, _ buckets: [Duration]) -> CoreMetrics.Timer {
            CoreMetrics.Timer(
                label: name, dimensions: [],
                handler: registry.makeDurationHistogram(descriptor: describe(name, help), labels: [], buckets: buckets),
                factory: factory)
        }
        registrations = kinds.map {
            counter("reqd_registrations_total", "Jobs registered, by kind; a dead letter sent again by `retry` counts again.", [("kind", $0.rawValue)])
        }
        retries = Dictionary(
            uniqueKeysWithValues: [JobKind.request, .group].map {
                ($0, counter("reqd_retries_total", "Failed attempts after which another was planned, by kind.", [("kind", $0.rawValue)]))
            })
        ended = kinds.map { kind in
            Self.endStates.map { state in
                counter("reqd_jobs_ended_total", "Jobs that ended, by kind and how.", [("kind", kind.rawValue), ("state", state.rawValue)])
            }
        }
        holds = counter(
            "reqd_holds_total", "Jobs held: request jobs for an unreachable target (an attempt found it so, or it was already down), any job for a target whose circuit breaker is open.")
        breakerTransitions = BreakerState.allCases.map {
            counter(
                "reqd_breaker_transitions_total", "Changes of a target's circuit breaker, by the state it went to.",
                [("state", $0.rawValue)])
        }
        deadLetters = counter("reqd_dead_letters_total", "Request jobs dead-lettered after their last attempt.")
        attempts = counter("reqd_attempts_total", "HTTP requests started: polls, request job attempts and group members.")
        answers = Self.answerClasses.map {
            counter("reqd_http_responses_total", "Ends of HTTP requests, by status class; error: no answer.", [("class", $0)])
        }
        httpDuration = timer(
            "reqd_http_request_duration_seconds", "Time from a request's start to its answer or failure.",
            [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
             .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10), .seconds(30)])
        commitDuration = timer(
            "reqd_commit_duration_seconds", "Time one store transaction takes, fsync included.",
            [.microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
             .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1)])
        lateness = timer(
            "reqd_timer_lateness_seconds", "How late the scheduler's timer fired past the earliest job deadline.",
            [.microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
             .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100), .seconds(1)])
        jobs = kinds.map { kind in
            JobState.allCases.map { state in
                meter("reqd_jobs", "Jobs the daemon holds, by kind and state.", [("kind", kind.rawValue), ("state", state.rawValue)])
            }
        }
        heldJobs = meter("reqd_held_jobs", "Request jobs waiting for an unreachable target.")
        unreachableTargets = meter("reqd_unreachable_targets", "Targets found unreachable now.")
        connections = meter("reqd_connections", "Open client connections.")
    }

    /// Counts a job event: registrations, retries, holds, dead letters and ends; `state` is a
    /// completed group's.
    func observe(_ type: JobEventType, kind jobKind: JobKind, state: JobState?) {
        switch type {
        case .tick, .polled, .progress, .member, .elapsed, .paused, .resumed: return
        default: break
        }
        let kind = Self.index(of: jobKind)
        switch type {
        case .registered: registrations[kind].increment()
        case .retrying: retries[jobKind]?.increment()
        case .held: holds.increment()
        case .dead:
            deadLetters.increment()
            ended[kind][Self.endIndex(of: .dead)].increment()
        case .completed: ended[kind][Self.endIndex(of: state ?? .succeeded)].increment()
        case .expired, .cancelled, .succeeded, .failed, .timedOut:
            if let ending = Self.endState(of: type) { ended[kind][Self.endIndex(of: ending)].increment() }
        case .tick, .polled, .progress, .member, .elapsed, .paused, .resumed: break
        }
    }

    /// Counts a change of a target's circuit breaker.
    func breakerChanged(to state: BreakerState) {
        breakerTransitions[BreakerState.allCases.firstIndex(of: state) ?? 0].increment()
    }

    /// Counts an HTTP request handed to the executor.
    func attemptStarted() { attempts.increment() }

    /// Counts the end of an HTTP request by its answer's class, and how long it took when it
    /// went out at all (nil for one refused before it started). A refusal by the target policy
    /// sent nothing, and is not counted.
    func httpFinished(_ outcome: HTTPOutcome, nanoseconds: Int64?) {
        if case .denied = outcome { return }
        if case .response(let answer) = outcome, (100..<600).contains(answer.status) {
            answers[answer.status / 100 - 1].increment()
        } else {
            answers[answers.count - 1].increment()
        }
        if let nanoseconds { httpDuration.recordNanoseconds(nanoseconds) }
    }

    /// Records how long a store transaction took.
    func committed(nanoseconds: Int64) { commitDuration.recordNanoseconds(nanoseconds) }

    /// Records how late the timer fired past the job deadline it was armed for.
    func timerFired(lateNanoseconds: Int64) { lateness.recordNanoseconds(max(0, lateNanoseconds)) }

    /// Sets the gauges from the scheduler's counts, then writes every metric out.
    public func exposition(_ gauges: MetricsResult) -> String {
        writing.withLock { _ in
            for (kind, byState) in zip(JobKind.allCases, jobs) {
                for (state, meter) in zip(JobState.allCases, byState) {
                    meter.set(gauges.jobs[kind.rawValue]?[state.rawValue] ?? 0)
                }
            }
            heldJobs.set(gauges.heldJobs)
            unreachableTargets.set(gauges.unreachableTargets)
            connections.set(gauges.connections)
            return registry.emitToString()
        }
    }

    /// The state a terminal event ends its job in, from the one mapping `JobEventType(ending:)`.
    private static func endState(of type: JobEventType) -> JobState? {
        endStates.first { JobEventType(ending: $0) == type }
    }

    private static func index(of kind: JobKind) -> Int { JobKind.allCases.firstIndex(of: kind) ?? 0 }
    private static func endIndex(of state: JobState) -> Int { endStates.firstIndex(of: state) ?? 0 }
    /// The states a job ends in.
    private static let endStates = JobState.allCases.filter { $0 != .active }
}
