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

    @Test("the same frames whatever the reads' boundaries, and whether the bytes are raw, in an array or in a collection without contiguous storage")
    func boundariesAndContainers() {
        var generator = SystemRandomNumberGenerator()
        let text = Array("{\"a\":1}\r\n\n0123456789abcdef\nxy\n\r\n{\"b\":[2]}\nlast".utf8)
        var whole = LineFramer(maxLineBytes: 12)
        var expected: [LineFramer.Frame] = []
        whole.append(text + [10], into: &expected)
        #expect(expected == [.line(Array("{\"a\":1}".utf8)), .oversized, .line(Array("xy".utf8)), .line(Array("{\"b\":[2]}".utf8)), .line(Array("last".utf8))])
        for round in 0..<200 {
            var framer = LineFramer(maxLineBytes: 12)
            var frames: [LineFramer.Frame] = []
            var start = 0
            while start < text.count {
                let end = min(text.count, start + Int.random(in: 1...7, using: &generator))
                let piece = text[start..<end]
                switch (round + start) % 3 {
                case 0: piece.withUnsafeBytes { framer.append($0, into: &frames) }
                case 1: framer.append(piece, into: &frames)
                default: framer.append(piece.lazy.map { $0 }, into: &frames)
                }
                start = end
            }
            framer.append(CollectionOfOne(UInt8(10)), into: &frames)
            #expect(frames == expected, "round \(round)")
        }
    }
}
