import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPCompression
import ReqdCore
@testable import ReqdDaemon
import Synchronization
import Testing

private let ms: Int64 = 1_000_000

/// The most of `instants` (nanoseconds, ascending) in any window of one second.
private func busiestSecond(_ instants: [Int64]) -> Int {
    var most = 0
    var first = 0
    for (index, instant) in instants.enumerated() {
        while instant - instants[first] >= 1_000 * ms { first += 1 }
        most = max(most, index - first + 1)
    }
    return most
}

/// Takes a close of the input only as a socket does, leaving the channel open for writes.
private final class HalfClose: ChannelOutboundHandler {
    typealias OutboundIn = Any

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .input else { return context.close(mode: mode, promise: promise) }
        promise?.succeed(())
    }
}

@Suite("Requests held to their target's rate as they are written")
struct WirePacerTests {
    /// A channel with the recorder's handler where a connection has it, before the decompressor,
    /// its clock the channel's own; and the instant it starts from.
    private static func pipeline() throws -> (EmbeddedChannel, AttemptAddressRecorder, UInt64) {
        let channel = EmbeddedChannel()
        let loop = channel.embeddedEventLoop
        let start = loop.now.uptimeNanoseconds
        let recorder = AttemptAddressRecorder(gate: nil) { Int64(loop.now.uptimeNanoseconds - start) }
        try channel.pipeline.syncOperations.addHandler(NIOHTTPResponseDecompressor(limit: .none))
        try recorder.install(on: channel).wait()
        return (channel, recorder, start)
    }

    @Test("the bucket over the writes: a burst goes at once, then one an interval; a quiet spell fills it again; targets apart")
    func bucket() {
        var pacer = WirePacer()
        let pace = WirePace(target: "api.example:443", intervalNanos: 5 * ms, burst: 3)
        #expect((0..<3).map { _ in pacer.reserve(pace, at: 0) } == [0, 0, 0])
        #expect(pacer.reserve(pace, at: 0) == 5 * ms)
        #expect(pacer.reserve(pace, at: 1 * ms) == 10 * ms)
        // Another target's bucket is its own.
        #expect(pacer.reserve(WirePace(target: "other.example:443", intervalNanos: 5 * ms, burst: 1), at: 1 * ms) == 1 * ms)
        // Once the bucket has refilled, the burst goes at once again.
        #expect((0..<3).map { _ in pacer.reserve(pace, at: 1_000 * ms) } == [1_000 * ms, 1_000 * ms, 1_000 * ms])
        #expect(pacer.reserve(pace, at: 1_000 * ms) == 1_005 * ms)
    }

    @Test("targets whose buckets are full again are forgotten once many are remembered")
    func sweep() {
        var pacer = WirePacer()
        // 1,025 targets in use at once are all kept, and the next sweep waits for twice as many.
        for index in 0..<1_025 { _ = pacer.reserve(WirePace(target: "h\(index):80", intervalNanos: ms, burst: 1), at: 0) }
        #expect(pacer.targets == 1_025)
        // Once their buckets are full again, the sweep forgets them and keeps the targets in use.
        for index in 0..<1_026 { _ = pacer.reserve(WirePace(target: "n\(index):80", intervalNanos: ms, burst: 1), at: 10 * ms) }
        #expect(pacer.targets == 1_026)
    }

    @Test("a burst that reached the wire late does not let a second at the target hold more than rate + burst")
    func lateBurst() throws {
        let (channel, recorder, start) = try Self.pipeline()
        let loop = channel.embeddedEventLoop
        // 200/s with a burst of 20, as bench/targets runs it. The scheduler's bucket gives the
        // burst's 20 tokens at 0 and one every 5 ms from then on. The burst and the first token
        // after it each wait for a new connection and reach the wire 6 ms late, while every later
        // request is written on a warm connection as soon as its token comes. Written as they
        // come, a second from the first write would hold 221.
        let pace = WirePace(target: "127.0.0.1:18090", intervalNanos: 5 * ms, burst: 20)
        var writes: [(at: Int64, tag: String)] = (0..<20).map { (6 * ms, "rq_\($0) 1") }
        writes.append((6 * ms + ms / 2, "rq_20 1"))
        writes += (21..<400).map { (Int64($0 - 19) * 5 * ms, "rq_\($0) 1") }
        #expect(busiestSecond(writes.map(\.at).sorted()) == 221, "the case the pacer is for")
        writes.sort { $0.at < $1.at }
        var sent: [Int64] = []
        var next = 0
        for tick in stride(from: Int64(0), through: Int64(2_500) * ms, by: Int(ms / 4)) {
            loop.advanceTime(to: NIODeadline.uptimeNanoseconds(start + UInt64(tick)))
            while next < writes.count, writes[next].at <= tick {
                let tag = writes[next].tag
                recorder.expect(tag, pace: pace)
                var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/hook")
                head.headers.add(name: AttemptAddressRecorder.header, value: tag)
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                channel.write(HTTPClientRequestPart.end(nil), promise: nil)
                channel.flush()
                next += 1
            }
            while let part = try channel.readOutbound(as: HTTPClientRequestPart.self) {
                guard case .head(let head) = part else { continue }
                #expect(!head.headers.contains(name: AttemptAddressRecorder.header), "the tag never reaches the wire")
                sent.append(tick)
            }
        }
        #expect(sent.count == writes.count, "every request went")
        #expect(busiestSecond(sent) <= 220, "at most rate + burst in any second on the wire")
        // Held only as long as the bound needs: the whole run is as long as the rate makes it.
        #expect((sent.last ?? 0) <= (writes.last?.at ?? 0) + 6 * ms)
        _ = try channel.finish()
    }

    @Test("a request of a target with no rate, or written within its bucket, is never held; a held one keeps its writes in order")
    func noHold() throws {
        let (channel, recorder, _) = try Self.pipeline()
        let loop = channel.embeddedEventLoop
        func write(_ tag: String, pace: WirePace?) {
            recorder.expect(tag, pace: pace)
            var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/\(tag)")
            head.headers.add(name: AttemptAddressRecorder.header, value: tag)
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: tag))), promise: nil)
            channel.write(HTTPClientRequestPart.end(nil), promise: nil)
            channel.flush()
        }
        func uris() throws -> [String] {
            var seen: [String] = []
            while let part = try channel.readOutbound(as: HTTPClientRequestPart.self) {
                switch part {
                case .head(let head): seen.append(head.uri)
                case .body(.byteBuffer(let body)): seen.append(String(buffer: body))
                case .body: seen.append("?")
                case .end: seen.append("end")
                }
            }
            return seen
        }
        write("a", pace: nil)
        write("b", pace: WirePace(target: "t:80", intervalNanos: 100 * ms, burst: 1))
        #expect(try uris() == ["/a", "a", "end", "/b", "b", "end"])
        write("c", pace: WirePace(target: "t:80", intervalNanos: 100 * ms, burst: 1))
        #expect(try uris() == [], "held: its bucket is full for 100 ms")
        loop.advanceTime(by: .milliseconds(99))
        #expect(try uris() == [])
        loop.advanceTime(by: .milliseconds(1))
        #expect(try uris() == ["/c", "c", "end"], "released whole, in order, at its instant")
        _ = try channel.finish()
    }

    @Test("a reload that changes a target's rate starts its bucket full: what the old rate owed is not carried over")
    func rateChange() {
        var pacer = WirePacer()
        let slow = WirePace(target: "t:80", intervalNanos: 100 * ms, burst: 1)
        #expect(pacer.reserve(slow, at: 0) == 0)
        #expect(pacer.reserve(slow, at: 0) == 100 * ms)
        // The new rate's bucket is full at once, though the old one owed 200 ms.
        let fast = WirePace(target: "t:80", intervalNanos: 5 * ms, burst: 2)
        #expect(pacer.reserve(fast, at: 1 * ms) == 1 * ms)
        #expect(pacer.reserve(fast, at: 1 * ms) == 1 * ms)
        #expect(pacer.reserve(fast, at: 1 * ms) == 6 * ms)
        // And back: the slow rate starts full again too.
        #expect(pacer.reserve(slow, at: 2 * ms) == 2 * ms)
        #expect(pacer.reserve(slow, at: 2 * ms) == 102 * ms)
    }

    /// Writes a tagged request head and its end on `channel`, returning the head's promise's future.
    private static func writeRequest(
        _ tag: String, pace: WirePace?, recorder: AttemptAddressRecorder, on channel: EmbeddedChannel
    ) -> EventLoopFuture<Void> {
        recorder.expect(tag, pace: pace)
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/\(tag)")
        head.headers.add(name: AttemptAddressRecorder.header, value: tag)
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.write(HTTPClientRequestPart.head(head), promise: written)
        channel.write(HTTPClientRequestPart.end(nil), promise: nil)
        channel.flush()
        return written.futureResult
    }

    /// The request heads written out so far, by URI.
    private static func heads(_ channel: EmbeddedChannel) throws -> [String] {
        var seen: [String] = []
        while let part = try channel.readOutbound(as: HTTPClientRequestPart.self) {
            if case .head(let head) = part { seen.append(head.uri) }
        }
        return seen
    }

    @Test("a redirect's head is the same attempt: it goes at once and the bucket is charged for the attempt once")
    func redirectChargedOnce() throws {
        let (channel, recorder, _) = try Self.pipeline()
        let loop = channel.embeddedEventLoop
        let pace = WirePace(target: "t:80", intervalNanos: 100 * ms, burst: 1)
        _ = Self.writeRequest("rq_a 1", pace: pace, recorder: recorder, on: channel)
        // AsyncHTTPClient writes the redirect's head with the same tag; it is not held.
        var again = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/moved")
        again.headers.add(name: AttemptAddressRecorder.header, value: "rq_a 1")
        channel.write(HTTPClientRequestPart.head(again), promise: nil)
        channel.flush()
        #expect(try Self.heads(channel) == ["/rq_a 1", "/moved"])
        // The next attempt waits one interval, not two.
        _ = Self.writeRequest("rq_b 1", pace: pace, recorder: recorder, on: channel)
        loop.advanceTime(by: .milliseconds(99))
        #expect(try Self.heads(channel) == [])
        loop.advanceTime(by: .milliseconds(1))
        #expect(try Self.heads(channel) == ["/rq_b 1"])
        _ = try channel.finish()
    }

    @Test("a connection closed while a head is held fails the held writes and sends nothing of them")
    func closeFailsHeld() throws {
        let (channel, recorder, _) = try Self.pipeline()
        // An embedded channel closes whole whatever the mode; a socket's half-close is kept here.
        try channel.pipeline.syncOperations.addHandler(HalfClose(), position: .first)
        let loop = channel.embeddedEventLoop
        let pace = WirePace(target: "t:80", intervalNanos: 100 * ms, burst: 1)
        let first = Self.writeRequest("rq_a 1", pace: pace, recorder: recorder, on: channel)
        let second = Self.writeRequest("rq_b 1", pace: pace, recorder: recorder, on: channel)
        #expect(try Self.heads(channel) == ["/rq_a 1"])
        try first.wait()
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        second.whenComplete { result in outcome.withLock { $0 = result } }
        // Closing only the input leaves the held request waiting for its instant.
        channel.pipeline.close(mode: .input, promise: nil)
        loop.run()
        #expect(outcome.withLock { $0 } == nil)
        channel.pipeline.close(mode: .all, promise: nil)
        loop.run()
        #expect(throws: ChannelError.ioOnClosedChannel) { try outcome.withLock { $0 }?.get() }
        loop.advanceTime(by: .milliseconds(200))
        #expect(try Self.heads(channel) == [], "nothing held was written after the close")
    }
}
