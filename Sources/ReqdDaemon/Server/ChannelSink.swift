import NIOCore

/// Sends a connection's outbound lines through its channel, from any thread.
struct ChannelSink: MessageSink {
    let channel: any Channel

    func send(_ messages: [OutboundMessage]) {
        channel.writeAndFlush(messages, promise: nil)
    }
}
