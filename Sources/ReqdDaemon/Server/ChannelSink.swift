import NIOCore

/// Sends a connection's outbound lines through its event loop's `OutboundQueue`, from any thread.
struct ChannelSink: MessageSink {
    let channel: any Channel
    let outbound: OutboundQueue

    func send(_ messages: [OutboundMessage]) {
        outbound.send(messages, to: channel)
    }
}
