import Foundation
import ReqdProtocol
import Testing
@testable import ReqdCore

@Suite("Stored details read by hand, against Foundation")
struct StoredJSONReadableTests {
    /// How the hand reader's answer to `document` differs from `JSONDecoder`'s, if it does.
    private func difference<T: StoredJSONReadable & Decodable & Equatable>(_ type: T.Type, _ document: String) -> String? {
        let hand = T(storedJSON: document)
        let reference = try? JSONDecoder().decode(T.self, from: Data(document.utf8))
        guard hand != reference else { return nil }
        return "\(T.self) from \(document): hand \(hand.map { "\($0)" } ?? "failed"), Foundation \(reference.map { "\($0)" } ?? "failed")"
    }

    @Test("30,000 details, written as the store writes them and then mutated, read the same by hand and by JSONDecoder", arguments: [1, 2, 3] as [UInt64])
    func details(seed: UInt64) throws {
        var generator = StoredDetailGenerator(seed: seed)
        let encoder = CompactJSONEncoder()
        var differences: [String] = []
        var mutatedRead = 0
        for index in 0..<10_000 {
            let detail = generator.detail()
            let document = String(decoding: try encoder.encode(detail), as: UTF8.self)
            #expect(JobDetail(storedJSON: document) == detail, "seed \(seed), detail \(index): \(document)")
            if let difference = difference(JobDetail.self, document) { differences.append(difference) }
            for _ in 0..<2 {
                let mutated = generator.mutated(document)
                if let difference = difference(JobDetail.self, mutated) { differences.append(difference) }
                if JobDetail(storedJSON: mutated) != nil { mutatedRead += 1 }
            }
        }
        #expect(differences.isEmpty, "seed \(seed): \(differences.count) differences, the first: \(differences.prefix(3))")
        // Both outcomes must be common among the mutated, or the test would compare only one kind.
        #expect((4_000...16_000).contains(mutatedRead), "\(mutatedRead) of 20,000 mutated details read")
    }

    @Test("numbers read as Double as JSONDecoder reads them: a number that is not zero but rounds to it, or is too large, is refused, and so are some zeros")
    func doubles() {
        let numbers = [
            "0", "-0", "0.0", "-0.0", "0e5", "0.0e5", "-0e5", "-0.0e5", "0E1", "0e-400", "0.000e+3", "0.0000e1", "1e-400", "-1e-400",
            "2e-324", "5e-324", "1e308", "1e309", "-1e400", "0.1", "1E2", "12.5e-1",
        ]
        for number in numbers {
            let document = #"{"number":1,"started_at":"2026-11-24T06:00:00Z","duration_ms":\#(number)}"#
            #expect(difference(AttemptInfo.self, document) == nil)
        }
        #expect(AttemptInfo(storedJSON: #"{"number":1,"started_at":"2026-11-24T06:00:00Z","duration_ms":1e-400}"#) == nil)
    }

    @Test("the counters, results, members and attempts that have columns or rows of their own read the same by hand and by JSONDecoder")
    func parts() throws {
        var generator = StoredDetailGenerator(seed: 9)
        let encoder = CompactJSONEncoder()
        var differences: [String] = []
        func check<T: StoredJSONReadable & Codable & Equatable>(_ value: T) throws {
            let document = String(decoding: try encoder.encode(value), as: UTF8.self)
            #expect(T(storedJSON: document) == value, "\(document)")
            for candidate in [document, generator.mutated(document), generator.mutated(document)] {
                if let difference = difference(T.self, candidate) { differences.append(difference) }
            }
        }
        for _ in 0..<2_000 {
            try check(generator.deliveryCounters())
            try check(generator.group().counters)
            try check(generator.scheduleCounters())
            try check(generator.result())
            try check(generator.member())
            // Attempts are written by the wire's writer, as the store writes them.
            let attempt = generator.attempt()
            var writer = JSONWriter()
            attempt.write(to: &writer)
            let document = String(decoding: writer.bytes, as: UTF8.self)
            #expect(AttemptInfo(storedJSON: document) == attempt, "\(document)")
            for candidate in [document, generator.mutated(document)] {
                if let difference = difference(AttemptInfo.self, candidate) { differences.append(difference) }
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differences, the first: \(differences.prefix(3))")
    }

    @Test("a detail read with its kind's counters known (from the row's columns) takes those, reads the rest as without them, and never reads its own")
    func knownCounters() throws {
        var generator = StoredDetailGenerator(seed: 11)
        let encoder = CompactJSONEncoder()
        var corruptedRead = 0
        for index in 0..<3_000 {
            let detail = generator.detail()
            let known: JobProgress.Counters =
                switch generator.random.below(5) {
                case 0: .poll(generator.poll().counters)
                case 1: .delivery(generator.deliveryCounters())
                case 2: .group(generator.group().counters)
                case 3: .schedule(generator.scheduleCounters())
                default: .none
                }
            var expected = detail
            expected.setCounters(known)
            let document = String(decoding: try encoder.encode(detail), as: UTF8.self)
            #expect(JobDetail(storedJSON: document, counters: known) == expected, "detail \(index): \(document)")
            // The detail's own counters unreadable: no matter when the columns' are known. A
            // delivery's `attempts` is a member's key too, so only a detail without a group.
            let (corruptible, pattern, replacement): (Bool, String, String) =
                switch known {
                case .poll: (detail.poll != nil, #""polls":-?[0-9]+"#, #""polls":"x""#)
                case .delivery: (detail.request != nil && detail.group == nil, #""attempts":-?[0-9]+"#, #""attempts":"x""#)
                case .group: (detail.group != nil, #""member_states":\["#, #""member_states":7,"ignored":["#)
                case .schedule: (detail.schedule != nil, #""runs":-?[0-9]+"#, #""runs":"x""#)
                case .none: (false, "", "")
                }
            guard corruptible else { continue }
            let corrupted = document.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
            #expect(corrupted != document)
            #expect(JobDetail(storedJSON: corrupted) == nil, "\(corrupted)")
            #expect(JobDetail(storedJSON: corrupted, counters: known) == expected, "detail \(index): \(corrupted)")
            corruptedRead += 1
        }
        #expect(corruptedRead > 200, "only \(corruptedRead) details had their own counters corrupted")
    }

    @Test("a repeated key reads as JSONDecoder reads it: the first stands, in a record and in the reports by outcome")
    func repeatedKeys() {
        let request = #""request":{"method":"GET","url":"http://h/","headers":[]},"max_attempts":1,"backoff_min_ns":1,"backoff_max_ns":2"#
        let documents = [
            #"{\#(request),"max_attempts":3}"#,
            #"{\#(request),"reports":{"success":{\#(request)},"success":{\#(request),"parent":"p"}}}"#,
            #"{\#(request),"reports":{"success":{\#(request),"parent":"p"},"success":{"junk":1}}}"#,
            #"{\#(request),"reports":{"success":{"junk":1},"success":{\#(request)}}}"#,
            #"{\#(request),"reports":{"failure":{\#(request)},"success":null}}"#,
            #"{\#(request),"reports":{"failure":{\#(request)}},"reports":{"success":{\#(request)}}}"#,
        ]
        for document in documents {
            #expect(difference(DeliverySettings.self, document) == nil)
        }
        #expect(DeliverySettings(storedJSON: documents[2])?.reports?["success"]?.parent == "p")
    }
}
