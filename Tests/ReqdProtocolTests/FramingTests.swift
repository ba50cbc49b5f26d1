import Testing
@testable import ReqdProtocol

@Suite("Framing")
struct FramingTests {
    @Test("lines split across reads are joined; \\r\\n and empty lines are handled")
    func splitsLines() {
        var framer = LineFramer(maxLineBytes: 100)
        var frames: [LineFramer.Frame] = []
        framer.append(Array("{\"a\":1}\n{\"b\"".utf8), into: &frames)
        framer.append(Array(":2}\r\n\n{\"c\":3}\n".utf8), into: &frames)
        #expect(frames == [.line(Array("{\"a\":1}".utf8)), .line(Array("{\"b\":2}".utf8)), .line(Array("{\"c\":3}".utf8))])
        #expect(framer.pendingBytes == 0)
    }

    @Test("a line over the limit is reported once, dropped without buffering, and the next line still works")
    func oversized() {
        var framer = LineFramer(maxLineBytes: 10)
        var frames: [LineFramer.Frame] = []
        framer.append(Array(repeating: UInt8(ascii: "x"), count: 8), into: &frames)
        framer.append(Array(repeating: UInt8(ascii: "x"), count: 8), into: &frames)
        #expect(frames == [.oversized])
        #expect(framer.pendingBytes == 0)
        framer.append(Array(repeating: UInt8(ascii: "x"), count: 1000), into: &frames)
        framer.append(Array("xx\nok\n".utf8), into: &frames)
        #expect(frames == [.oversized, .line(Array("ok".utf8))])
        framer.append(Array("01234567890123\n".utf8), into: &frames)
        #expect(frames.last == .oversized)
    }
}
