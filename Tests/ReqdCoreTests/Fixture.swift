import ReqdProtocol
@testable import ReqdCore

/// Plain times and values for the suites that drive one part alone: no scheduler, no harness.
enum Fixture {
    static let second: Int64 = 1_000_000_000
    static let ms: Int64 = 1_000_000

    /// Where every machine test starts on the boot-time clock.
    static let start = Instant(nanoseconds: 1_000 * second)
    /// The wall-clock time at `start`.
    static let startWall = WallTime(nanosecondsSinceEpoch: 1_800_000_000 * second)

    /// The defaults: a request timeout of 30 s, result bodies cut at 4096 bytes.
    static let configuration = SchedulerConfiguration()

    /// A GET of `url`.
    static func get(_ url: String) -> HTTPRequestSpec { HTTPRequestSpec(method: "GET", url: url) }

    /// An answer with this status, its body naming the status.
    static func answer(_ status: Int) -> HTTPOutcome {
        .response(HTTPAnswer(status: status, body: Array("s\(status)".utf8)))
    }

    /// The part of `answer(status)` a job keeps.
    static func kept(_ status: Int) -> HTTPResult { HTTPResult(status: status, body: "s\(status)", truncated: false) }

    /// A request job's request with its retry policy, its first attempt due at `start`.
    static func delivery(_ url: String = "https://api.example/orders", maxAttempts: Int = 5) -> Delivery {
        Delivery(
            request: get(url), maxAttempts: maxAttempts, backoffMin: 1 * second, backoffMax: 10 * second, parent: nil,
            firstAttempt: start)
    }

    /// An active job's header.
    static func header(
        _ id: String, kind: JobKind = .countdown, owner: UInt32 = 1000, key: String? = nil, scope: String? = nil,
        boundTo: ConnectionID? = nil
    ) -> JobHeader {
        JobHeader(
            id: JobID(id), kind: kind, owner: owner, key: key, scope: scope, durable: false, boundTo: boundTo,
            createdAt: startWall, state: .active)
    }
}

extension Fixture {
    /// A fresh machine of `kind`, for a job whose machine a test does not look at.
    static func work(of kind: JobKind) -> Job.Work {
        switch kind {
        case .countdown: .countdown(Countdown(deadline: start.advanced(by: 60 * second), tick: second, lateBy: nil))
        case .poll:
            .poll(
                Poll(
                    request: get("https://api.example/p"), every: second, condition: try! PollCondition(parsing: "status == 200"),
                    progressPointer: nil, timeout: nil, deadline: nil, maxPolls: nil, maxFailures: 5, firstStart: start))
        case .request: .request(delivery())
        case .group: .group(Group(members: [GroupMember(delivery: delivery())], concurrency: 1, timeout: nil, deadline: nil, onComplete: nil))
        case .schedule: .schedule(Schedule(rule: .every(interval: 60 * second, anchor: startWall)))
        }
    }
}

/// The instant `nanoseconds` after `Fixture.start`.
func at(_ nanoseconds: Int64) -> Instant { Fixture.start.advanced(by: nanoseconds) }

/// A reading of both clocks `nanoseconds` after `Fixture.start`, the wall clock moving with the boot-time clock.
func reading(_ nanoseconds: Int64) -> ClockReading {
    ClockReading(instant: at(nanoseconds), wall: WallTime(nanosecondsSinceEpoch: Fixture.startWall.nanosecondsSinceEpoch + nanoseconds))
}
