import Foundation
import Testing
@testable import ReqdProtocol

@Suite("Request decoding, hand against Foundation")
struct RequestDecoderDifferentialTests {
    /// How two decoders' answers to one line differ, if they do.
    static func difference(
        _ hand: Result<Request, RequestDecodingFailure>, _ reference: Result<Request, RequestDecodingFailure>
    ) -> String? {
        switch (hand, reference) {
        case (.success(let mine), .success(let theirs)):
            return mine == theirs ? nil : "specs differ: \(mine) against \(theirs)"
        case (.failure(let mine), .failure(let theirs)):
            if mine.id != theirs.id { return "ids differ: \(String(describing: mine.id)) against \(String(describing: theirs.id))" }
            if mine.error != theirs.error { return "errors differ: \(mine.error) against \(theirs.error)" }
            return nil
        case (.success(let mine), .failure(let theirs)):
            return "hand decoded \(mine), Foundation failed with \(theirs.error)"
        case (.failure(let mine), .success(let theirs)):
            return "hand failed with \(mine.error), Foundation decoded \(theirs)"
        }
    }

    @Test("120,000 valid, mutated and random lines decode to the same spec or the same error", arguments: [1, 2, 3, 4] as [UInt64])
    func differential(seed: UInt64) {
        var generator = RequestLineGenerator(seed: seed)
        let hand = RequestDecoder()
        let reference = FoundationRequestDecoder()
        var differences: [String] = []
        var decoded = 0
        var kinds: [String: Int] = [:]
        for index in 0..<30_000 {
            var line: [UInt8]
            switch index % 10 {
            case 0..<5: line = generator.validLine()
            case 5..<9: line = generator.mutatedLine()
            default: line = generator.randomLine()
            }
            line = line.map { $0 == 0x0A ? 0x20 : $0 }
            let mine = hand.decode(line)
            let theirs = reference.decode(line)
            if case .success = theirs { decoded += 1 }
            if case .failure(let failure) = theirs { kinds[failure.error.code.rawValue, default: 0] += 1 }
            // Foundation takes a line whose first or second byte is NUL for UTF-16 or UTF-32 and
            // converts it; the daemon reads UTF-8 only (docs/PROTOCOL.md). Such a line is not JSON
            // in UTF-8, and both refuse it as bad_json, with different messages.
            if line.prefix(2).contains(0) {
                if case .failure(let failure) = mine, failure.error.code == .badJSON, case .failure(let other) = theirs,
                    other.error.code == .badJSON
                {
                    continue
                }
                differences.append("seed \(seed) line \(index): \(line.prefix(40)): not bad_json from both")
                continue
            }
            if let difference = Self.difference(mine, theirs) {
                differences.append("seed \(seed) line \(index): \(String(decoding: line, as: UTF8.self).debugDescription): \(difference)")
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differences; the first: \(differences.prefix(8).joined(separator: "\n"))")
        // The lines must reach both the decoded and the failing paths, and every kind of failure.
        #expect(decoded > 3_000, "only \(decoded) lines decoded")
        for code in [ErrorCode.badJSON, .missingField, .badField, .unknownField, .unknownOperation] {
            #expect(kinds[code.rawValue, default: 0] > 100, "only \(kinds[code.rawValue, default: 0]) lines failed with \(code.rawValue)")
        }
    }
}
