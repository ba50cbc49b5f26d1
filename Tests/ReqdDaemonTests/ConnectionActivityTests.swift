@testable import ReqdDaemon
import ReqdProtocol
import Testing

@Suite("What a connection still owes its client")
struct ConnectionActivityTests {
    private static let at = WallTime(nanosecondsSinceEpoch: 0)

    private static func job(_ id: String, _ state: JobState = .active) -> JobInfo {
        JobInfo(id: id, kind: .countdown, state: state, owner: 1000, key: "k", scope: nil, durable: false, createdAt: at)
    }

    private static func reply(_ id: Int64, _ body: ReplyBody) -> OutboundMessage {
        .response(Response(id: .number(id), outcome: .success(body)))
    }

    private static func event(_ type: JobEventType, job: String, watch: Int64) -> OutboundMessage {
        .event(EventMessage(watch: .number(watch), event: JobEvent(type: type, job: job, kind: .countdown, key: nil, scope: nil, owner: 1000, at: at)))
    }

    private static func request(_ id: Int64, _ body: RequestBody) -> Request { Request(id: .number(id), body: body) }

    @Test("idle once every request handed over has its reply")
    func replies() {
        var activity = ConnectionActivity()
        #expect(activity.isIdle)
        activity.handedOver(Self.request(1, .hello(HelloRequest())))
        activity.handedOver(Self.request(2, .wait(WaitRequest(job: "cd_1"))))
        #expect(activity.unanswered == 2)
        activity.wrote(Self.reply(1, .hello(HelloResult(protocolVersion: 1, server: "reqd", version: "0", uid: 0))))
        #expect(!activity.isIdle)
        activity.wrote(Self.reply(2, .job(JobResult(job: Self.job("cd_1", .expired)))))
        #expect(activity.isIdle)
    }

    @Test("a line refused with an error is owed until its reply is written, with or without an id")
    func refused() {
        var activity = ConnectionActivity()
        activity.refused(nil)
        activity.refused(.number(3))
        #expect(!activity.isIdle)
        let failure = WireError(.badJSON, "not JSON")
        activity.wrote(.response(Response(id: nil, outcome: .failure(failure))))
        #expect(!activity.isIdle)
        activity.wrote(.response(Response(id: .number(3), outcome: .failure(failure))))
        #expect(activity.isIdle)
    }

    @Test("an error reply to a bad line that reuses a pending watch's id does not cost that watch its stream")
    func refusedReusedID() {
        var activity = ConnectionActivity()
        activity.handedOver(Self.request(7, .watch(JobSelector(job: "cd_1"))))
        activity.refused(.number(7))
        activity.wrote(.response(Response(id: .number(7), outcome: .failure(WireError(.badJSON, "not JSON")))))
        activity.wrote(Self.reply(7, .watching(WatchResult(job: Self.job("cd_1"), scope: nil, streaming: true))))
        #expect(activity.streams == [.number(7): [.job("cd_1"): 1]])
        #expect(!activity.isIdle)
    }

    @Test("a job's stream lasts from a streaming reply to the job's terminal event on that watch")
    func jobStream() {
        var activity = ConnectionActivity()
        activity.handedOver(Self.request(7, .watch(JobSelector(job: "cd_1"))))
        activity.wrote(Self.reply(7, .watching(WatchResult(job: Self.job("cd_1"), scope: nil, streaming: true))))
        #expect(activity.streams == [.number(7): [.job("cd_1"): 1]])
        activity.wrote(Self.event(.tick, job: "cd_1", watch: 7))
        activity.wrote(Self.event(.expired, job: "cd_1", watch: 8))
        #expect(!activity.isIdle, "another watch's terminal event ends nothing")
        activity.wrote(Self.event(.expired, job: "cd_1", watch: 7))
        #expect(activity.isIdle)
    }

    @Test("follow on a registration streams while the job is active; a refused or ended one does not")
    func follow() {
        var activity = ConnectionActivity()
        var spec = CountdownSpec(key: "k", durationMs: 1_000)
        spec.follow = true
        activity.handedOver(Self.request(1, .registerCountdown(spec)))
        activity.wrote(Self.reply(1, .registered(RegisterResult(job: Self.job("cd_1"), replaced: nil))))
        #expect(activity.streams == [.number(1): [.job("cd_1"): 1]])
        activity.wrote(Self.event(.cancelled, job: "cd_1", watch: 1))
        #expect(activity.isIdle)

        activity.handedOver(Self.request(2, .registerCountdown(spec)))
        activity.wrote(.response(Response(id: .number(2), outcome: .failure(WireError(.badField, "no")))))
        activity.handedOver(Self.request(3, .registerCountdown(spec)))
        activity.wrote(Self.reply(3, .registered(RegisterResult(job: Self.job("cd_2", .expired), replaced: nil))))
        #expect(activity.isIdle)

        spec.follow = nil
        activity.handedOver(Self.request(4, .registerCountdown(spec)))
        activity.wrote(Self.reply(4, .registered(RegisterResult(job: Self.job("cd_3"), replaced: nil))))
        #expect(activity.isIdle, "without follow a registration streams nothing")
    }

    @Test("a scope's stream ends only with unwatch")
    func scopeStream() {
        var activity = ConnectionActivity()
        activity.handedOver(Self.request(5, .watch(JobSelector(scope: "kitchen"))))
        activity.wrote(Self.reply(5, .watching(WatchResult(job: nil, scope: "kitchen", streaming: true))))
        activity.wrote(Self.event(.expired, job: "cd_1", watch: 5))
        #expect(activity.streams == [.number(5): [.scope: 1]])
        activity.handedOver(Self.request(6, .unwatch(UnwatchRequest(watch: .number(5)))))
        activity.wrote(Self.reply(6, .unwatched(UnwatchResult(removed: 1))))
        #expect(activity.isIdle)
    }

    @Test("a connection that follows 20,000 jobs is idle once the last of them has ended, and not before")
    func manyStreams() {
        var activity = ConnectionActivity()
        let count: Int64 = 20_000
        for id in 1...count {
            activity.handedOver(Self.request(id, .registerCountdown(CountdownSpec(key: "k\(id)", durationMs: 1_000, follow: true))))
            activity.wrote(Self.reply(id, .registered(RegisterResult(job: Self.job("cd_\(id)"), replaced: nil))))
        }
        #expect(activity.streams.count == Int(count))
        for id in 1..<count { activity.wrote(Self.event(.expired, job: "cd_\(id)", watch: id)) }
        #expect(!activity.isIdle)
        activity.wrote(Self.event(.expired, job: "cd_\(count)", watch: count))
        #expect(activity.isIdle)
    }
}
