import NIOCore
import ReqdProtocol

/// The first stage of a connection's pipeline: bytes in, whole `LineFramer.Frame`s out.
///
/// It wraps `LineFramer` rather than using a size limit of NIO's, which ends decoding with
/// `PayloadTooLargeError`: a line over the limit must become one `.oversized` frame while the
/// connection stays open. Every byte handed in is consumed at once; the framer keeps the unfinished
/// line (never more than the limit), so the handler's own buffer does not grow. At the end of input
/// (EOF, or the client closing its write side) an unterminated last line still counts, because
/// `socat` and `nc -U` end their input without a newline.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = LineFramer.Frame

    private var framer: LineFramer
    /// Reused for every read, so framing allocates nothing beyond the lines themselves.
    private var frames: [LineFramer.Frame] = []

    init(maxLineBytes: Int) {
        framer = LineFramer(maxLineBytes: maxLineBytes)
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        frame(&buffer, context: context, atEnd: false)
        return .needMoreData
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        frame(&buffer, context: context, atEnd: seenEOF)
        return .needMoreData
    }

    /// Frames everything readable and passes each frame on; at the end of input a newline closes the last line.
    private mutating func frame(_ buffer: inout ByteBuffer, context: ChannelHandlerContext, atEnd: Bool) {
        buffer.withUnsafeReadableBytes { framer.append($0, into: &frames) }
        buffer.moveReaderIndex(to: buffer.writerIndex)
        if atEnd { framer.append([UInt8(ascii: "\n")], into: &frames) }
        for frame in frames { context.fireChannelRead(Self.wrapInboundOut(frame)) }
        frames.removeAll(keepingCapacity: true)
    }
}
