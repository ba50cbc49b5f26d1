import Testing
@testable import ReqdCore

@Suite("ChunkedArray: an array and a queue that grow and shrink a chunk at a time")
struct ChunkedArrayTests {
    private static let chunk = ChunkedArray<Int>.chunkSize

    @Test("appends, removals at both ends and writes in place give what an Array gives")
    func likeAnArray() {
        var chunked = ChunkedArray<Int>()
        var plain: [Int] = []
        var random = RandomSource(seed: 11)
        for step in 0..<60_000 {
            switch random.next() % 8 {
            case 0, 1, 2, 3:
                chunked.append(step)
                plain.append(step)
            case 4:
                if !plain.isEmpty { #expect(chunked.removeLast() == plain.removeLast()) }
            case 5:
                #expect(chunked.popFirst() == (plain.isEmpty ? nil : plain.removeFirst()))
            default:
                if !plain.isEmpty {
                    let index = Int(random.next() % UInt64(plain.count))
                    chunked[index] += 1
                    plain[index] += 1
                }
            }
            #expect(chunked.count == plain.count)
            #expect(chunked.first == plain.first)
        }
        #expect((0..<plain.count).allSatisfy { chunked[$0] == plain[$0] })
    }

    @Test("as a heap's entries: 200,000 down to 20,000 from the end holds at most three chunks more than it needs, with no shrink pass")
    func shrinksFromTheEnd() {
        var chunked = ChunkedArray<Int>()
        for value in 0..<200_000 { chunked.append(value) }
        #expect(chunked.capacity >= 200_000)
        for _ in 0..<180_000 { chunked.removeLast() }
        #expect(chunked.count == 20_000)
        #expect(chunked.capacity <= 20_000 + 3 * Self.chunk)
        #expect(chunked[19_999] == 19_999)
    }

    @Test("as a queue: 200,000 in, 180,000 taken from the front, and the taken chunks are gone")
    func shrinksFromTheFront() {
        var chunked = ChunkedArray<Int>()
        for value in 0..<200_000 { chunked.append(value) }
        for value in 0..<180_000 { #expect(chunked.popFirst() == value) }
        #expect(chunked.first == 180_000)
        #expect(chunked[0] == 180_000)
        #expect(chunked.capacity <= 20_000 + 3 * Self.chunk)
    }

    @Test("a count going back and forth across a chunk's edge allocates nothing: the emptied chunk is kept as the spare and reused")
    func spareAtTheEdge() {
        var chunked = ChunkedArray<Int>()
        for value in 0..<(2 * Self.chunk) { chunked.append(value) }
        let twoChunks = chunked.capacity
        #expect(!chunked.hasSpare)
        chunked.append(0)
        let threeChunks = chunked.capacity
        #expect(threeChunks >= twoChunks + Self.chunk)
        for _ in 0..<1_000 {
            chunked.removeLast()
            #expect(chunked.hasSpare)
            #expect(chunked.capacity == threeChunks, "the emptied chunk stays, as the spare")
            chunked.append(0)
            #expect(!chunked.hasSpare, "the spare is the new chunk")
            #expect(chunked.capacity == threeChunks)
        }
    }

    @Test("the shrink pass lets the spare go and moves a lone sparse chunk, taken elements dropped, in one small move")
    func shrinkALoneChunk() {
        var chunked = ChunkedArray<Int>()
        for value in 0..<(3 * Self.chunk) { chunked.append(value) }
        while chunked.count > 100 { _ = chunked.popFirst() }
        #expect(chunked.capacity >= Self.chunk)
        var budget = ShrinkBudget()
        let through = chunked.shrink(&budget)
        #expect(through)
        #expect(chunked.capacity < 256)
        #expect(budget.freedBytes >= Self.chunk * MemoryLayout<Int>.stride)
        #expect(ShrinkBudget.slice - budget.left < 100)
        #expect(chunked.first == 3 * Self.chunk - 100)
        #expect(chunked[99] == 3 * Self.chunk - 1)
    }
}
