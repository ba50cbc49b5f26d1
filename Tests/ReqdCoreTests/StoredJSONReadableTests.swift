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
        var read = 0
        for index in 0..<10_000 {
            let detail = generator.detail()
            let document = String(decoding: try encoder.encode(detail), as: UTF8.self)
            if index % 2 == 0 {
                #expect(JobDetail(storedJSON: document) == detail, "seed \(seed), detail \(index): \(document)")
                if let difference = difference(JobDetail.self, document) { differences.append(difference) }
                read += 1
            }
            for _ in 0..<2 {
                let mutated = generator.mutated(document)
                if let difference = difference(JobDetail.self, mutated) { differences.append(difference) }
                if JobDetail(storedJSON: mutated) != nil { read += 1 }
            }
        }
        #expect(differences.isEmpty, "seed \(seed): \(differences.count) differences, the first: \(differences.prefix(3))")
        // The mutations must leave some documents readable, or the test would only compare failures.
        #expect(read > 10_000)
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
