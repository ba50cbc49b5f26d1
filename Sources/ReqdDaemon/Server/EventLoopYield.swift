import Glibc
import NIOCore
import NIOPosix

/// Runs work on an event loop after it has next polled its sockets.
///
/// NIO runs every task that is due before it polls again, including tasks those tasks schedule: a
/// chain of "the next budget, a little later" tasks runs back to back whenever the other tasks
/// after each budget (the writes its turn queued) take longer than the delay, and no socket is
/// read until the chain ends (a pipelining client's 2,000
/// lines held every other client's `status` for 60 ms that way). This wakes the loop through a pipe
/// instead. The pipe's read end is a channel on the loop, so the work runs in the tick that polls
/// it, alongside the other sockets that tick found ready. Work queued from one tick's run goes to
/// the next tick.
final class EventLoopYield: @unchecked Sendable {
    // @unchecked Sendable: `waiting` and `armed` are touched only on `eventLoop` (asserted in `next`
    // and `fire`), and `closed` only in a task submitted to it; `channel` is set once in `start`,
    // before `start` returns the object, and only read afterwards (the pipe's handler holds the
    // object weakly and touches only `fire`).

    let eventLoop: any EventLoop
    private var waiting: [() -> Void] = []
    private var armed = false
    private var closed = false
    private let writeEnd: Int32
    private var channel: (any Channel)?

    private init(eventLoop: any EventLoop, writeEnd: Int32) {
        self.eventLoop = eventLoop
        self.writeEnd = writeEnd
    }

    /// Opens the pipe and registers its read end on `eventLoop`; call from outside the loop.
    static func start(on eventLoop: any EventLoop) throws(DaemonError) -> EventLoopYield {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw DaemonError(.socketSetupFailed, "cannot make the event loop's wake-up pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        let yield = EventLoopYield(eventLoop: eventLoop, writeEnd: ends[1])
        do {
            yield.channel = try NIOPipeBootstrap(group: eventLoop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(WakeHandler(yield: yield))
                    }
                }
                .takingOwnershipOfDescriptor(input: ends[0]).wait()
        } catch {
            Glibc.close(ends[0])
            Glibc.close(ends[1])
            throw DaemonError(.socketSetupFailed, "cannot watch the event loop's wake-up pipe: \(error)")
        }
        return yield
    }

    /// Runs `body` on the loop after its next poll; call on the loop.
    func next(_ body: @escaping () -> Void) {
        eventLoop.preconditionInEventLoop()
        waiting.append(body)
        guard !armed else { return }
        armed = true
        guard !closed else {
            // Shutting down: what is left runs as a task, without waiting for a poll.
            eventLoop.execute { self.fire() }
            return
        }
        var byte: UInt8 = 1
        if write(writeEnd, &byte, 1) != 1 {
            // The pipe cannot take the byte (it is full, so a wake-up is pending anyway, or it is
            // broken): a task makes sure the work is not left waiting.
            eventLoop.execute { self.fire() }
        }
    }

    /// Closes the pipe; work queued later runs as plain tasks. Call from outside the loop, before
    /// the loop shuts down.
    func close() {
        try? eventLoop.submit {
            self.closed = true
            Glibc.close(self.writeEnd)
            if self.armed { self.eventLoop.execute { self.fire() } }
        }.wait()
        try? channel?.close().wait()
    }

    fileprivate func fire() {
        eventLoop.preconditionInEventLoop()
        armed = false
        let due = waiting
        waiting.removeAll(keepingCapacity: true)
        for body in due { body() }
    }

    /// Empties the pipe and runs the waiting work.
    private final class WakeHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        /// Weak: the yield owns the channel this handler is in.
        private weak var yield: EventLoopYield?

        init(yield: EventLoopYield) { self.yield = yield }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

        func channelReadComplete(context: ChannelHandlerContext) {
            yield?.fire()
        }
    }
}
