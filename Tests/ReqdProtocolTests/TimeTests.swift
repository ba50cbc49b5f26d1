import Testing
@testable import ReqdProtocol

@Suite("Times and durations")
struct TimeTests {
    @Test("RFC 3339 parses offsets and fractions, and prints UTC with milliseconds")
    func rfc3339() throws {
        let plain = try #require(WallTime(rfc3339: "2026-11-22T10:00:00Z"))
        #expect(plain.nanosecondsSinceEpoch == 1_795_341_600 * 1_000_000_000)
        let offset = try #require(WallTime(rfc3339: "2026-11-22T11:00:00.5+01:00"))
        #expect(offset.nanosecondsSinceEpoch == plain.nanosecondsSinceEpoch + 500_000_000)
        #expect(offset.rfc3339 == "2026-11-22T10:00:00.500Z")
        // Outside what 64-bit nanoseconds hold (1677 to 2262): refused, not a trap that stops the daemon.
        for bad in [
            "yesterday", "2026-13-01T00:00:00Z", "2026-11-22 10:00", "2026-11-22T10:00:00", "2026-11-22T10:00:00Zjunk",
            "2300-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "1500-01-01T00:00:00Z",
        ] {
            #expect(WallTime(rfc3339: bad) == nil, "\(bad)")
        }
    }

    @Test("durations read as 500ms, 3s, 15m, 1h30m; nonsense is refused", arguments: [
        ("500ms", Int64(500_000_000)), ("3s", 3_000_000_000), ("15m", 900_000_000_000), ("1h30m", 5_400_000_000_000),
        ("2d", 172_800_000_000_000), ("1.5", 1_500_000_000), ("250us", 250_000),
    ])
    func durations(text: String, nanos: Int64) {
        #expect(DurationText.parseNanoseconds(text) == nanos)
    }

    @Test("bad durations are refused")
    func badDurations() {
        for bad in ["", "soon", "3x", "s", "1e400", "5 parsecs"] {
            #expect(DurationText.parseNanoseconds(bad) == nil, "\(bad)")
        }
        #expect(DurationText.format(nanoseconds: 5_400_000_000_000) == "1h30m")
        #expect(DurationText.format(nanoseconds: 2_500_000_000) == "2.5s")
    }
}
