/// Splits a byte stream into newline-delimited frames, with a limit on a line's length.
///
/// A line over the limit is reported once as `.oversized` and its bytes are dropped up to the
/// next newline, so one bad line never costs more memory than the limit and never ends the stream.
public struct LineFramer: Sendable {
    /// A unit the framer hands back.
    public enum Frame: Sendable, Hashable {
        /// A complete line, without its newline (and without a trailing `\r`).
        case line([UInt8])
        /// A line longer than the limit; its bytes were discarded.
        case oversized
    }

    /// The longest line accepted, in bytes, not counting the newline.
    public var maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var discarding = false

    public init(maxLineBytes: Int = ProtocolInfo.defaultMaxLineBytes) {
        self.maxLineBytes = maxLineBytes
    }

    /// Feeds bytes and appends every frame they complete to `frames`.
    ///
    /// Bytes in contiguous storage (an array, a slice of one, NIO's `ByteBufferView`) are framed
    /// in place; others are copied into an array first.
    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes, into frames: inout [Frame]) {
        let framed = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0), into: &frames) }
        if framed == nil { Array(bytes).withUnsafeBytes { append($0, into: &frames) } }
    }

    /// Feeds the bytes at `bytes` and appends every frame they complete to `frames`.
    ///
    /// Not generic, so that a caller in another module (the daemon's `LineFrameDecoder`) gets this
    /// loop compiled for raw bytes, not a walk through a collection's witnesses byte by byte.
    public mutating func append(_ bytes: UnsafeRawBufferPointer, into frames: inout [Frame]) {
        var rest = bytes[...]
        while !rest.isEmpty {
            if discarding {
                guard let newline = rest.firstIndex(of: 10) else { return }
                discarding = false
                rest = rest[(newline + 1)...]
                continue
            }
            if let newline = rest.firstIndex(of: 10) {
                let part = rest[..<newline]
                rest = rest[(newline + 1)...]
                if buffer.count + part.count > maxLineBytes {
                    buffer.removeAll(keepingCapacity: false)
                    frames.append(.oversized)
                    continue
                }
                var line = buffer
                line.append(contentsOf: part)
                buffer.removeAll(keepingCapacity: true)
                if line.last == 13 { line.removeLast() }
                if !line.isEmpty { frames.append(.line(line)) }
            } else {
                if buffer.count + rest.count > maxLineBytes {
                    buffer.removeAll(keepingCapacity: false)
                    discarding = true
                    frames.append(.oversized)
                    return
                }
                buffer.append(contentsOf: rest)
                return
            }
        }
    }

    /// Bytes held for an unfinished line.
    public var pendingBytes: Int { buffer.count }
}
