import Foundation
@testable import ReqdProtocol
import Testing

@Suite("Response headers held compactly")
struct HeaderLinesTests {
    static let nginx = [
        "Server: nginx/1.22.1", "Date: Sun, 29 Nov 2026 11:33:43 GMT", "Content-Type: application/json", "Content-Length: 47",
        "Last-Modified: Sun, 29 Nov 2026 11:33:43 GMT", "Connection: keep-alive", "ETag: \"6b0c0d97-2f\"", "Accept-Ranges: bytes",
    ]

    @Test("nginx's answer reads back as it was, in well under half its text")
    func nginxAnswer() {
        let lines = HeaderLines(Self.nginx)
        #expect(lines.lines == Self.nginx)
        #expect(Self.nginx.joined(separator: "\n").utf8.count == 215)
        #expect(lines.storedBytes <= 90, "\(lines.storedBytes) bytes")
        let h2 = Self.nginx.map { line in
            let colon = line.firstIndex(of: ":")!
            return line[..<colon].lowercased() + line[colon...]
        }
        #expect(HeaderLines(h2).lines == h2)
        #expect(HeaderLines(h2).storedBytes == lines.storedBytes, "HTTP/2's lower-case names take tokens too")
    }

    @Test("200,000 generated header lists read back exactly: common and unknown names in any case, dates right and wrong, UTF-8, empty and odd lines")
    func generatedRoundTrip() {
        var random = RequestLineGenerator.Random(seed: 0x5EED_4EAD)
        let names = ["Date", "date", "DATE", "Last-Modified", "last-modified", "Expires", "Content-Type", "content-type", "Server",
                     "X-Request-Id", "x-unknown", "Set-Cookie", "Retry-After", "ETag", "Vary", "Ünknown", "日付", ""]
        let separators = [": ", ":", ":  ", " : ", ""]
        let values = [
            "", "application/json", "nginx", "é", "日本語", "\u{FEFF}x", "a: b", "Sun, 06 Nov 1994 08:49:37 GMT",
            "Mon, 06 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
            "Thu, 29 Feb 2024 00:00:00 GMT", "Sat, 29 Feb 2025 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
            "Thu, 01 Jan 1970 00:00:00 GMT", "Wed, 31 Dec 1969 23:59:59 GMT", "Sun, 06 Nov 1994 08:49:60 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37 GMT ", "\u{80}", "0",
        ]
        var dates = 0
        for round in 0..<200_000 {
            let lines = (0..<random.below(6)).map { _ -> String in
                var value = random.pick(values)
                if random.chance(20) {
                    let seconds = Int64(random.next() % UInt64(IMFFixdate.maxSeconds + 1))
                    value = IMFFixdate.text(seconds: seconds)
                    dates += 1
                }
                return random.pick(names) + random.pick(separators) + value
            }
            let held = HeaderLines(lines)
            guard held.lines == lines, held == HeaderLines(lines) else {
                Issue.record("round \(round): \(lines) read back as \(held.lines)")
                return
            }
        }
        #expect(dates > 10_000)
    }

    @Test("a date is read only in the exact form it is written in, and written as Foundation writes it")
    func fixdates() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var random = RequestLineGenerator.Random(seed: 7)
        let samples = [0, 86_399, 951_782_400, 1_709_164_800, 4_107_542_400, IMFFixdate.maxSeconds]
            + (0..<5_000).map { _ in Int64(random.next() % UInt64(IMFFixdate.maxSeconds + 1)) }
        for seconds in samples {
            let text = IMFFixdate.text(seconds: seconds)
            #expect(text == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))), "\(seconds)")
            #expect(IMFFixdate.seconds(of: Array(text.utf8)[...]) == seconds, "\(text)")
        }
        for text in [
            "Mon, 06 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "Sun,  6 Nov 1994 08:49:37 GMT",
            "Sat, 29 Feb 2025 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Wed, 31 Dec 1969 23:59:59 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
        ] {
            #expect(IMFFixdate.seconds(of: Array(text.utf8)[...]) == nil, "\(text)")
        }
    }
}
