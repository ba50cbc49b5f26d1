import Glibc
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import ReqdDaemon

@Suite("Yielding to the event loop's poll")
struct EventLoopYieldTests {
    /// Records, on the loop, at which step of the chain the pipe's byte was read.
    final class Probe: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let readAtStep = Mutex<Int?>(nil)
        let step = Mutex(0)

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let now = step.withLock { $0 }
            readAtStep.withLock { if $0 == nil { $0 = now } }
        }
    }

    /// Keeps the loop busy for `micros` µs, as a budget of requests would.
    private static func busy(_ micros: Int) {
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        var now = start
        repeat {
            clock_gettime(CLOCK_MONOTONIC, &now)
        } while (now.tv_sec - start.tv_sec) * 1_000_000 + (now.tv_nsec - start.tv_nsec) / 1_000 < micros
    }

    /// A chain of "next budget in 20 µs" tasks did not do this: with another task of more than
    /// 20 µs after each step, NIO found the next step due before it polled, every time.
    @Test("a chain of 100 busy steps lets a socket that became readable be read after one step, not after all of them")
    func pollsBetweenSteps() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let yield = try EventLoopYield.start(on: loop)
        defer { yield.close() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[1]) }
        let probe = Probe()
        _ = try NIOPipeBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(probe) }
            }
            .takingOwnershipOfDescriptor(input: ends[0]).wait()
        let writeEnd = ends[1]
        let finished = loop.makePromise(of: Void.self)
        @Sendable func step(_ index: Int) {
            probe.step.withLock { $0 = index }
            if index == 1 {
                var byte: UInt8 = 1
                _ = write(writeEnd, &byte, 1)
            }
            Self.busy(100)
            if index == 100 {
                finished.succeed()
            } else {
                yield.next { step(index + 1) }
                // As the writes of the replies a budget's turn queued: a task that runs after it.
                loop.execute { Self.busy(50) }
            }
        }
        loop.execute { step(1) }
        try finished.futureResult.wait()
        let readAt = probe.readAtStep.withLock { $0 }
        #expect(readAt != nil)
        #expect((readAt ?? 100) <= 2, "the pipe was read at step \(readAt ?? -1) of 100")
    }
}
