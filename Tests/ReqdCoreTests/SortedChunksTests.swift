import Testing
@testable import ReqdCore

@Suite("SortedChunks")
struct SortedChunksTests {
    @Test("random inserts and removes keep the elements sorted, as a sorted array would, across chunk splits and empties")
    func matchesASortedArray() {
        var chunks = SortedChunks<Int>()
        var model: [Int] = []
        var state: UInt64 = 42
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 40)
        }
        for step in 0..<20_000 {
            // Mostly appends at the end, as jobs in creation order come; some anywhere; some removals.
            switch step % 5 {
            case 0, 1:
                let value = (model.last ?? 0) + 1 + next() % 3
                chunks.insert(value)
                model.append(value)
            case 2:
                let value = next() % 100_000
                chunks.insert(value)
                model.insert(value, at: model.firstIndex { $0 > value } ?? model.count)
            default:
                guard !model.isEmpty else { continue }
                let value = step % 7 == 0 ? next() % 100_000 : model[next() % model.count]
                let removed = chunks.remove(value)
                if let index = model.firstIndex(of: value) {
                    model.remove(at: index)
                    #expect(removed)
                } else {
                    #expect(!removed)
                }
            }
        }
        #expect(chunks.elements == model)
        #expect(chunks.count == model.count)
        // Walking from any bound gives the elements above it.
        for bound in [nil, -1, model[model.count / 2], model.last!, model.last! + 1] as [Int?] {
            var walked: [Int] = []
            var position = chunks.position(after: bound)
            while let element = chunks.element(at: position) {
                walked.append(element)
                position = chunks.position(after: position)
            }
            #expect(walked == model.filter { value in bound.map { value > $0 } ?? true })
        }
    }
}
