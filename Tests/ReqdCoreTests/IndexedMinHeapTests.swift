import Testing
@testable import ReqdCore

/// A key whose hash is the same for every few keys: the position index must tell them apart by
/// the entry in the place a bucket names.
private struct Clashing: ShardKey {
    var value: Int
    func hash(into hasher: inout Hasher) { hasher.combine(value / 64) }
}

@Suite("Indexed min-heap")
struct IndexedMinHeapTests {
    @Test("keys that share their hash in groups of 64 are found, moved and removed like any others, the index true at every step")
    func clashingHashes() {
        var heap = IndexedMinHeap<Clashing, Int>()
        var reference: [Int: Int] = [:]
        var random = RandomSource(seed: 11)
        for _ in 0..<5_000 {
            let key = Int(random.next() % 300)
            switch random.next() % 4 {
            case 0, 1:
                let priority = Int(random.next() % 1_000)
                heap.set(Clashing(value: key), priority: priority)
                reference[key] = priority
            case 2:
                #expect(heap.remove(Clashing(value: key)) == reference.removeValue(forKey: key))
            default:
                #expect(heap.priority(of: Clashing(value: key)) == reference[key])
            }
            #expect(heap.isValid())
        }
        var drained: [Int] = []
        while let entry = heap.popMin(notAfter: Int.max) {
            #expect(reference[entry.key.value] == entry.priority)
            drained.append(entry.priority)
        }
        #expect(drained == reference.values.sorted())
    }

    @Test("insert, move and remove by key keep the order and the index")
    func randomOperationsMatchAReference() {
        var heap = IndexedMinHeap<Int, Int>()
        var reference: [Int: Int] = [:]
        var random = RandomSource(seed: 7)
        for _ in 0..<20_000 {
            let key = Int(random.next() % 500)
            switch random.next() % 3 {
            case 0, 1:
                let priority = Int(random.next() % 10_000)
                heap.set(key, priority: priority)
                reference[key] = priority
            default:
                #expect(heap.remove(key) == reference.removeValue(forKey: key))
            }
            #expect(heap.count == reference.count)
            #expect(heap.min?.priority == reference.values.min())
        }
        #expect(heap.isValid())
        var drained: [Int] = []
        while let entry = heap.popMin(notAfter: Int.max) { drained.append(entry.priority) }
        #expect(drained == reference.values.sorted())
    }

    @Test("moving a key up and down re-sorts it")
    func moveKey() {
        var heap = IndexedMinHeap<String, Int>()
        heap.set("a", priority: 10)
        heap.set("b", priority: 20)
        heap.set("c", priority: 30)
        heap.set("c", priority: 5)
        #expect(heap.min?.key == "c")
        heap.set("c", priority: 50)
        #expect(heap.min?.key == "a")
        #expect(heap.priority(of: "c") == 50)
        #expect(heap.popMin(notAfter: 9) == nil)
        #expect(heap.popMin(notAfter: 10)?.key == "a")
        #expect(heap.isValid())
    }

    @Test("a hundred thousand moves and removals keep the heap valid")
    func logarithmicDepth() {
        var heap = IndexedMinHeap<Int, Int>()
        for key in 0..<100_000 { heap.set(key, priority: 100_000 - key) }
        for key in stride(from: 0, to: 100_000, by: 7) { heap.set(key, priority: key) }
        for key in stride(from: 0, to: 100_000, by: 11) { heap.remove(key) }
        #expect(heap.isValid())
    }
}
