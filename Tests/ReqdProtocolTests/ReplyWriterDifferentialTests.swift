import Foundation
import Testing
@testable import ReqdProtocol

/// Random replies and events, every optional field present or not.
private struct ReplyGenerator {
    var random: RequestLineGenerator.Random

    mutating func chance(_ percent: Int) -> Bool { random.chance(percent) }
    mutating func string() -> String {
        random.pick(["", "k", "a b", "ünï", "😀", "q\"uote", "back\\slash", "line\nbreak", "tab\t", "nul\u{0}", "\u{1F}", "/x", "cd_7k2m9x4q1b"])
    }
    mutating func maybe<T>(_ make: (inout Self) -> T) -> T? { chance(50) ? make(&self) : nil }
    mutating func int() -> Int { random.pick([0, 1, -1, 7, 1_000, Int(Int32.max), Int.max, Int.min]) }
    mutating func int64() -> Int64 { Int64(int()) }
    mutating func double() -> Double {
        random.pick([0, 0.5, -0.25, 1, 12.75, 1e15, 1.5e15, 123_456.789, -7, 1e-7, 3.141592653589793, 0.1 + 0.2])
    }
    mutating func time() -> WallTime { WallTime(nanosecondsSinceEpoch: Int64(random.below(1 << 62)) - (1 << 61)) }
    mutating func strings() -> [String] { (0..<random.below(3)).map { _ in string() } }
    mutating func id() -> RequestID { chance(50) ? .number(int64()) : .string(string()) }

    mutating func job() -> JobInfo {
        var job = JobInfo(
            id: string(), kind: random.pick(JobKind.allCases), state: random.pick(JobState.allCases), owner: UInt32(random.below(70_000)),
            key: maybe { $0.string() }, scope: maybe { $0.string() }, durable: chance(50), createdAt: time(), endedAt: maybe { $0.time() },
            reason: maybe { $0.random.pick([EventReason.requested, .superseded, .connectionClosed, .unreachable, .breakerOpen]) }, replacedBy: maybe { $0.string() },
            deadline: maybe { $0.time() }, remainingMs: maybe { $0.int64() }, tickMs: maybe { $0.int64() }, lateByMs: maybe { $0.double() })
        job.onExpire = maybe { OnExpireInfo(method: $0.string(), url: $0.string(), headerNames: $0.strings(), job: $0.maybe { $0.string() }) }
        job.poll = maybe {
            PollInfo(
                url: $0.string(), method: $0.string(), headerNames: $0.strings(), everyMs: $0.int64(), until: $0.string(),
                progressPointer: $0.maybe { $0.string() }, timeoutMs: $0.maybe { $0.int64() }, deadline: $0.maybe { $0.time() },
                maxPolls: $0.maybe { $0.int() }, maxFailures: $0.int(), polls: $0.int(), failures: $0.int(), progress: $0.maybe { $0.double() },
                lastStatus: $0.maybe { $0.int() }, lastError: $0.maybe { $0.string() }, inFlight: $0.chance(50), nextPollAt: $0.maybe { $0.time() })
        }
        job.request = maybe {
            var info = RequestInfo(
                url: $0.string(), method: $0.string(), headerNames: $0.strings(), maxAttempts: $0.int(), backoffMinMs: $0.int64(),
                backoffMaxMs: $0.int64(), attempts: $0.int(), lastStatus: $0.maybe { $0.int() }, lastError: $0.maybe { $0.string() },
                inFlight: $0.chance(50), nextAttemptAt: $0.maybe { $0.time() }, parent: $0.maybe { $0.string() })
            info.held = $0.maybe { $0.chance(50) }
            return info
        }
        job.group = maybe {
            GroupInfo(
                concurrency: $0.int(), timeoutMs: $0.maybe { $0.int64() }, total: $0.int(), done: $0.int(), failures: $0.int(),
                members: $0.members(), errors: $0.memberErrors(), onCompleteJob: $0.maybe { $0.string() })
        }
        job.boundToConnection = maybe { $0.chance(50) }
        job.result = maybe { HTTPResult(status: $0.int(), headers: $0.maybe { $0.strings() }, body: $0.string(), truncated: $0.chance(50)) }
        job.error = maybe { $0.string() }
        job.attempts = maybe { generator in
            (0..<generator.random.below(3)).map { _ in
                AttemptInfo(
                    number: generator.int(), startedAt: generator.time(), durationMs: generator.double(),
                    address: generator.maybe { $0.string() }, status: generator.maybe { $0.int() }, error: generator.maybe { $0.string() },
                    headers: generator.maybe { $0.strings() }, headersTruncated: generator.maybe { $0.chance(50) })
            }
        }
        return job
    }

    mutating func members() -> [MemberInfo] { (0..<random.below(3)).map { _ in member() } }

    mutating func memberErrors() -> [MemberError] {
        (0..<random.below(3)).map { _ in MemberError(index: int(), state: random.pick(MemberState.allCases), error: string()) }
    }

    mutating func member() -> MemberInfo {
        MemberInfo(
            index: int(), method: string(), url: string(), state: random.pick(MemberState.allCases), attempts: int(),
            status: maybe { $0.int() }, body: maybe { $0.string() }, truncated: maybe { $0.chance(50) }, error: maybe { $0.string() })
    }

    mutating func counts() -> [String: [String: Int]] {
        Dictionary(uniqueKeysWithValues: (0..<random.below(3)).map { index in
            ("kind\(index)\(string())", Dictionary(uniqueKeysWithValues: (0..<random.below(3)).map { ("state\($0)", int()) }))
        })
    }

    mutating func body() -> ReplyBody {
        switch random.below(9) {
        case 0: return .hello(HelloResult(protocolVersion: int(), server: string(), version: string(), uid: UInt32(random.below(1 << 31))))
        case 1: return .registered(RegisterResult(job: job(), replaced: maybe { $0.string() }, deduplicated: maybe { $0.chance(50) }))
        case 2: return .cancelled(CancelResult(cancelled: strings()))
        case 3:
            let usage = { (generator: inout Self) in LimitUsage(used: generator.int(), limit: generator.int()) }
            return .summary(
                DaemonSummary(
                    version: string(), protocolVersion: int(), pid: maybe { Int32($0.random.below(1 << 22)) }, startedAt: time(), uptimeMs: int64(),
                    jobs: counts(), connections: int(),
                    network: NetworkSummary(
                        state: chance(50) ? .online : .offline, offlineSince: maybe { $0.time() }, heldJobs: int(), unreachableTargets: int()),
                    limits: maybe {
                        LimitsSummary(
                            uid: UInt32($0.random.below(70_000)), applies: $0.chance(50), activeJobs: usage(&$0), connections: usage(&$0),
                            requestsInFlight: usage(&$0), requestsWaiting: $0.int(), retainedJobs: usage(&$0))
                    }, maxConnections: maybe { $0.int() },
                    targets: maybe { generator in
                        (0..<generator.random.below(3)).map { _ in
                            TargetLimitInfo(
                                target: generator.string(), table: generator.string(), rate: generator.maybe { $0.string() },
                                burst: generator.int(), concurrency: generator.int(), tokens: generator.maybe { $0.int() },
                                inFlight: generator.int(), waiting: generator.int(), pausedUntil: generator.maybe { $0.time() },
                                requestsLastMinute: generator.int(), lastError: generator.maybe { $0.string() },
                                breaker: generator.maybe {
                                    TargetBreakerInfo(
                                        state: $0.random.pick([BreakerState.closed, .open, .halfOpen]), since: $0.maybe { $0.time() },
                                        openUntil: $0.maybe { $0.time() }, requests: $0.int(), failures: $0.int(), failureRatio: $0.double(),
                                        minRequests: $0.int(), windowMs: $0.int64(), openForMs: $0.int64())
                                })
                        }
                    }))
        case 4: return .job(JobResult(job: job()))
        case 5: return .jobs(JobListResult(jobs: (0..<random.below(3)).map { _ in job() }, next: maybe { $0.string() }))
        case 6: return .watching(WatchResult(job: maybe { $0.job() }, scope: maybe { $0.string() }, streaming: chance(50)))
        case 7: return .unwatched(UnwatchResult(removed: int()))
        default:
            return .metrics(
                MetricsResult(
                    text: string(), jobs: counts(), heldJobs: int(), unreachableTargets: int(), connections: int(),
                    soonest: (0..<random.below(3)).map { _ in SoonestJob(dueAt: time(), dueInMs: int64(), job: job()) },
                    targets: (0..<random.below(3)).map { _ in
                        TargetInfo(
                            target: string(), state: chance(50) ? .failing : .unreachable, since: time(), failures: maybe { $0.int() },
                            lastStatus: maybe { $0.int() }, error: maybe { $0.string() }, heldJobs: maybe { $0.int() })
                    }))
        }
    }

    mutating func response() -> Response {
        let id = chance(95) ? id() : nil
        if chance(25) {
            return Response(id: id, outcome: .failure(WireError(random.pick(ErrorCode.allCases), string(), column: maybe { $0.int() })))
        }
        return Response(id: id, outcome: .success(body()))
    }

    mutating func event() -> EventMessage {
        var event = JobEvent(
            type: random.pick([.registered, .tick, .expired, .cancelled, .polled, .progress, .retrying, .held, .succeeded, .failed, .timedOut, .dead, .member, .completed]),
            job: string(), kind: random.pick(JobKind.allCases), key: maybe { $0.string() }, scope: maybe { $0.string() },
            owner: UInt32(random.below(70_000)), at: time(), remainingMs: maybe { $0.int64() }, lateByMs: maybe { $0.double() },
            reason: maybe { $0.random.pick([EventReason.requested, .superseded, .connectionClosed, .unreachable, .breakerOpen]) }, replacedBy: maybe { $0.string() })
        event.polls = maybe { $0.int() }
        event.failures = maybe { $0.int() }
        event.status = maybe { $0.int() }
        event.progress = maybe { $0.double() }
        event.error = maybe { $0.string() }
        event.attempt = maybe { $0.int() }
        event.spawned = maybe { $0.string() }
        event.member = maybe { $0.int() }
        event.memberState = maybe { $0.random.pick(MemberState.allCases) }
        event.done = maybe { $0.int() }
        event.total = maybe { $0.int() }
        event.state = maybe { $0.random.pick(JobState.allCases) }
        return EventMessage(watch: id(), event: event)
    }
}

@Suite("Reply and event writing, hand against Codable")
struct ReplyWriterDifferentialTests {
    private static func parsed(_ bytes: [UInt8]) -> NSObject? {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [])) as? NSObject
    }

    @Test("20,000 random replies and events written by hand parse back to the value CompactJSONEncoder writes")
    func differential() throws {
        var generator = ReplyGenerator(random: RequestLineGenerator.Random(seed: 7))
        let reference = CompactJSONEncoder()
        var writer = JSONWriter()
        var differences: [String] = []
        var identical = 0
        var metrics = 0
        for index in 0..<20_000 {
            writer.removeAll()
            let expected: [UInt8]
            if index % 3 == 0 {
                let event = generator.event()
                event.write(to: &writer)
                expected = try reference.encode(event)
            } else {
                let response = generator.response()
                if case .success(.metrics) = response.outcome { metrics += 1 }
                response.write(to: &writer)
                expected = try reference.encode(response)
            }
            if writer.bytes == expected { identical += 1 }
            guard let mine = Self.parsed(writer.bytes), let theirs = Self.parsed(expected), mine.isEqual(theirs) else {
                differences.append(
                    "\(index): \(String(decoding: writer.bytes, as: UTF8.self)) against \(String(decoding: expected, as: UTF8.self))")
                continue
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differ; the first: \(differences.prefix(3).joined(separator: "\n"))")
        // Same fields in the same order: the text itself is the same, but for `metrics`, whose job
        // counts the reference writes in dictionary order and the writer sorts.
        #expect(identical >= 20_000 - metrics, "\(identical) identical, \(metrics) metrics replies")
    }
}
