import ReqdProtocol
import Testing
@testable import ReqdCore

private let user = ConnectionID(1)
private let other = ConnectionID(2)
private let root = ConnectionID(3)

/// Three open connections: uid 1000, uid 1001 and root.
private func opened() -> Subscriptions {
    var subscriptions = Subscriptions()
    subscriptions.open(user, peer: Peer(uid: 1000, pid: 10))
    subscriptions.open(other, peer: Peer(uid: 1001, pid: 11))
    subscriptions.open(root, peer: Peer(uid: 0, pid: 12))
    return subscriptions
}

private func to(_ connection: ConnectionID, _ tag: Int64) -> Recipient { Recipient(connection: connection, watch: .number(tag)) }

private extension Subscriptions {
    /// `jobEnded`'s waiters, as recipients.
    mutating func endedWaiters(_ job: JobHeader) -> [Recipient] {
        jobEnded(job).map { Recipient(connection: $0.connection, watch: $0.request) }
    }
}

@Suite("Subscriptions, alone")
struct SubscriptionsTests {
    @Test("recipients are the job's watchers and the scope's watchers that may see its owner")
    func recipients() {
        var subscriptions = opened()
        let job = Fixture.header("cd_a", owner: 1000, scope: "s")
        subscriptions.watch(job: job.id, connection: user, tag: .number(1))
        subscriptions.watch(scope: "s", connection: user, tag: .number(2), peer: Peer(uid: 1000, pid: 10))
        subscriptions.watch(scope: "s", connection: other, tag: .number(3), peer: Peer(uid: 1001, pid: 11))
        subscriptions.watch(scope: "s", connection: root, tag: .number(4), peer: Peer(uid: 0, pid: 12))
        #expect(subscriptions.recipients(of: job) == [to(user, 1), to(user, 2), to(root, 4)])
        #expect(subscriptions.recipients(of: Fixture.header("cd_b", owner: 1001, scope: "s")) == [to(other, 3), to(root, 4)])
        #expect(subscriptions.recipients(of: Fixture.header("cd_c", owner: 1000, scope: "t")) == [])
    }

    @Test("a non-root scope watcher never sees, nor counts as watching, another uid's jobs")
    func scopeWatcherSeesOnlyItsOwn() {
        var subscriptions = opened()
        subscriptions.watch(scope: "s", connection: other, tag: .number(1), peer: Peer(uid: 1001, pid: 11))
        let mine = Fixture.header("cd_a", owner: 1000, scope: "s")
        #expect(subscriptions.recipients(of: mine) == [])
        #expect(!subscriptions.isWatched(mine))
        #expect(subscriptions.isWatched(Fixture.header("cd_b", owner: 1001, scope: "s")))
    }

    @Test("unwatch ends only the subscriptions its tag started, and says how many")
    func unwatch() {
        var subscriptions = opened()
        let a = Fixture.header("cd_a", scope: "s")
        let b = Fixture.header("cd_b")
        subscriptions.watch(job: a.id, connection: user, tag: .number(1))
        subscriptions.watch(job: b.id, connection: user, tag: .number(1))
        subscriptions.watch(scope: "s", connection: user, tag: .number(2), peer: Peer(uid: 1000, pid: 10))
        #expect(subscriptions.unwatch(connection: other, tag: .number(1)) == 0)
        #expect(subscriptions.unwatch(connection: user, tag: .number(1)) == 2)
        #expect(subscriptions.recipients(of: a) == [to(user, 2)])
        #expect(subscriptions.recipients(of: b) == [])
        #expect(subscriptions.unwatch(connection: user, tag: .number(1)) == 0)
    }

    @Test("close forgets every watch and wait of the connection and returns its bound jobs in id order")
    func close() {
        var subscriptions = opened()
        let watched = Fixture.header("cd_w", scope: "s")
        let awaited = Fixture.header("cd_x")
        subscriptions.watch(job: watched.id, connection: user, tag: .number(1))
        subscriptions.watch(scope: "s", connection: user, tag: .number(2), peer: Peer(uid: 1000, pid: 10))
        subscriptions.wait(for: awaited.id, connection: user, request: .number(3))
        subscriptions.wait(for: awaited.id, connection: other, request: .number(4))
        subscriptions.bind(JobID("cd_z"), to: user)
        subscriptions.bind(JobID("cd_m"), to: user)
        #expect(subscriptions.close(user) == [JobID("cd_m"), JobID("cd_z")])
        #expect(subscriptions.count == 2)
        #expect(subscriptions.recipients(of: watched) == [])
        #expect(subscriptions.endedWaiters(awaited) == [to(other, 4)])
        #expect(subscriptions.close(user) == [])
    }

    @Test("jobEnded returns the waiters once, ends the job's stream, and unbinds it")
    func jobEnded() {
        var subscriptions = opened()
        let job = Fixture.header("cd_a", scope: "s", boundTo: user)
        subscriptions.bind(job.id, to: user)
        subscriptions.watch(job: job.id, connection: other, tag: .number(1))
        subscriptions.watch(scope: "s", connection: root, tag: .number(2), peer: Peer(uid: 0, pid: 12))
        subscriptions.wait(for: job.id, connection: user, request: .number(3))
        subscriptions.wait(for: job.id, connection: user, request: .number(4))
        #expect(subscriptions.endedWaiters(job) == [to(user, 3), to(user, 4)])
        #expect(subscriptions.endedWaiters(job) == [])
        // The scope's stream goes on for the scope's other jobs.
        #expect(subscriptions.recipients(of: job) == [to(root, 2)])
        #expect(subscriptions.unwatch(connection: other, tag: .number(1)) == 0)
        #expect(subscriptions.close(user) == [])
    }

    @Test("a watch, wait or binding on a connection that is not open is ignored")
    func closedConnection() {
        var subscriptions = opened()
        _ = subscriptions.close(other)
        let job = Fixture.header("cd_a", scope: "s")
        subscriptions.watch(job: job.id, connection: other, tag: .number(1))
        subscriptions.watch(scope: "s", connection: ConnectionID(9), tag: .number(2), peer: Peer(uid: 0, pid: 1))
        subscriptions.wait(for: job.id, connection: other, request: .number(3))
        subscriptions.bind(job.id, to: other)
        #expect(subscriptions.recipients(of: job) == [])
        #expect(!subscriptions.isWatched(job))
        #expect(subscriptions.endedWaiters(job) == [])
        #expect(subscriptions.close(other) == [])
    }
}
