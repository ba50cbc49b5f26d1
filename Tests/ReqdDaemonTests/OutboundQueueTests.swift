import Dispatch
import NIOCore
import NIOEmbedded
import ReqdProtocol
import Testing

@testable import ReqdDaemon

@Suite("The outbound queue: writes in the scheduler's order, a bounded number per event-loop task")
struct OutboundQueueTests {
    private static func reply(_ id: Int64) -> OutboundMessage {
        .response(Response(id: .number(id), outcome: .success(.hello(HelloResult(protocolVersion: 1, server: "reqd", version: "0", uid: 0)))))
    }

    /// The reply ids written to `channel` so far, in the order they were written.
    private static func written(_ channel: EmbeddedChannel) throws -> [Int64] {
        var ids: [Int64] = []
        while let messages = try channel.readOutbound(as: [OutboundMessage].self) {
            for case .response(let response) in messages {
                if case .number(let id) = response.id { ids.append(id) }
            }
        }
        return ids
    }

    @Test("a burst of 1,000 writes to 10 connections goes out 64 per task, each connection's in order")
    func bounded() throws {
        let loop = EmbeddedEventLoop()
        let channels = (0..<10).map { _ in EmbeddedChannel(loop: loop) }
        let queue = OutboundQueue(eventLoop: loop)
        for id in 0..<1_000 {
            queue.send([Self.reply(Int64(id))], to: channels[id % 10])
        }
        var tasks = 0
        var seen = Array(repeating: [Int64](), count: 10)
        loop.run()
        while true {
            let before = seen.map(\.count).reduce(0, +)
            for index in channels.indices { seen[index] += try Self.written(channels[index]) }
            let wrote = seen.map(\.count).reduce(0, +) - before
            guard wrote > 0 else { break }
            tasks += 1
            #expect(wrote <= 64, "task \(tasks) wrote \(wrote)")
            loop.advanceTime(by: OutboundQueue.yieldDelay)
        }
        #expect(tasks == 16)
        #expect(queue.largestDrain == 64)
        for index in channels.indices {
            #expect(seen[index] == Array(stride(from: Int64(index), to: 1_000, by: 10)))
        }
    }

    @Test("lines queued from other threads and from the event loop go out in the order they were queued")
    func orderAcrossThreads() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        let queue = OutboundQueue(eventLoop: loop)
        let other = DispatchQueue(label: "reqd-test.other")
        for id in stride(from: Int64(0), to: 200, by: 2) {
            // As a timer turn would, from another thread; then a turn inline on the event loop.
            other.sync { queue.send([Self.reply(id)], to: channel) }
            queue.send([Self.reply(id + 1)], to: channel)
        }
        loop.run()
        for _ in 0..<10 { loop.advanceTime(by: OutboundQueue.yieldDelay) }
        #expect(try Self.written(channel) == Array(0..<200))
    }

    @Test("a send's promise completes once its lines are written")
    func promise() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        let queue = OutboundQueue(eventLoop: loop)
        let written = loop.makePromise(of: Void.self)
        var done = false
        written.futureResult.whenSuccess { done = true }
        queue.send([Self.reply(1)], to: channel)
        queue.send([], to: channel, promise: written)
        #expect(!done)
        loop.run()
        #expect(done)
        #expect(try Self.written(channel) == [1])
    }
}
