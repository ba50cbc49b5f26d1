import NIOCore
import NIOEmbedded
import NIOTestUtils
@testable import ReqdDaemon
import ReqdProtocol
import Testing

@Suite("Line framing as a NIO decoder stage")
struct LineFrameDecoderTests {
    private static func line(_ text: String) -> LineFramer.Frame { .line(Array(text.utf8)) }

    @Test("byte by byte, all at once and one message per buffer, the decoder gives the framer's frames")
    func verifier() throws {
        let long = String(repeating: "x", count: 40)
        try ByteToMessageDecoderVerifier.verifyDecoder(
            stringInputOutputPairs: [
                ("{\"id\":1,\"op\":\"status\"}\n", [Self.line("{\"id\":1,\"op\":\"status\"}")]),
                ("crlf\r\n", [Self.line("crlf")]),
                ("\n", []),
                ("two\nlines\n", [Self.line("two"), Self.line("lines")]),
                ("\(long)\n", [.oversized]),
                ("\(long)\(long)\n", [.oversized]),
                ("exactly twenty-four byte\n", [Self.line("exactly twenty-four byte")]),
            ],
            decoderFactory: { LineFrameDecoder(maxLineBytes: 24) })
    }

    @Test("an unterminated last line is a line once the input ends, by half-close or by close")
    func lastLineAtEndOfInput() throws {
        let halfClosed = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLineBytes: 64)))
        try halfClosed.writeInbound(ByteBuffer(string: "first\nsecond"))
        #expect(try halfClosed.readInbound(as: LineFramer.Frame.self) == Self.line("first"))
        #expect(try halfClosed.readInbound(as: LineFramer.Frame.self) == nil)
        halfClosed.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(try halfClosed.readInbound(as: LineFramer.Frame.self) == Self.line("second"))
        #expect(try halfClosed.finish().isClean)

        let closed = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLineBytes: 64)))
        try closed.writeInbound(ByteBuffer(string: "only"))
        #expect(try closed.readInbound(as: LineFramer.Frame.self) == nil)
        closed.pipeline.fireChannelInactive()
        #expect(try closed.readInbound(as: LineFramer.Frame.self) == Self.line("only"))
        #expect(try closed.finish().isClean)
    }

    @Test("a line over the limit at the end of input is reported once, and nothing of it comes back as a line")
    func oversizedLastLine() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLineBytes: 8)))
        try channel.writeInbound(ByteBuffer(string: "ok\n0123456789"))
        #expect(try channel.readInbound(as: LineFramer.Frame.self) == Self.line("ok"))
        #expect(try channel.readInbound(as: LineFramer.Frame.self) == .oversized)
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(try channel.readInbound(as: LineFramer.Frame.self) == nil)
        #expect(try channel.finish().isClean)
    }
}
