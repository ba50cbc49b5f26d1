import Foundation
import ReqdProtocol
import ReqdTestSupport
@testable import ReqdCore

/// Stored job details for the differential test of the hand readers: random values of every part
/// a row's `detail` holds, written as the store writes them, and the same documents mutated.
///
/// Deterministic for a seed, so a failure names its seed and document.
struct StoredDetailGenerator {
    typealias Random = RandomSource

    var random: Random

    init(seed: UInt64) { random = Random(seed: seed) }

    static let strings = [
        "", "k", "nightly", "a b", "ünïcödé", "😀", "quote\"inside", "back\\slash", "line\nbreak", "tab\there", "nul\u{0}byte",
        "slash/", "\u{7F}", "\u{FEFF}", "cd_7k2m9x4q1b", "connection refused", "/state == \"done\"", "Europe/Berlin",
    ]
    static let integers: [Int64] = [0, 1, -1, 7, 200, 503, 60_000, 1 << 40, Int64.max, Int64.min, -86_400_000_000_000]
    static let doubles: [Double] = [0, 0.5, 1, -2.25, 0.1, 1e-7, 123.456, 99.99, 1e21, .leastNonzeroMagnitude, 1.7976931348623157e308]

    mutating func string() -> String { random.pick(Self.strings) }
    mutating func maybe<T>(_ make: (inout Self) -> T) -> T? { random.chance(50) ? make(&self) : nil }
    mutating func integer() -> Int64 { random.chance(50) ? random.pick(Self.integers) : Int64(bitPattern: random.next()) >> random.below(64) }
    mutating func int() -> Int { Int(integer()) }
    mutating func double() -> Double {
        random.chance(50) ? random.pick(Self.doubles) : Double(random.next() % 1_000_000_007) / Double(1 + random.below(10_000))
    }
    /// A time in whole milliseconds, as the store writes times.
    mutating func wallTime() -> WallTime {
        let nanos = Int64(random.next() % 4_000_000_000_000_000_000) - (random.chance(10) ? 2_000_000_000_000_000_000 : 0)
        return WallTime(nanosecondsSinceEpoch: nanos / 1_000_000 * 1_000_000)
    }
    mutating func strings() -> [String] { (0..<random.below(4)).map { _ in string() } }

    mutating func bytes() -> [UInt8] { (0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) } }

    mutating func request() -> HTTPRequestSpec {
        HTTPRequestSpec(
            method: random.pick(["GET", "POST", "PUT", "X-ÜBER"]), url: random.pick(["http://127.0.0.1:9/hook?n=1", "https://example.com/a b", string()]),
            headers: (0..<random.below(4)).map { _ in HTTPHeader(name: string(), value: string()) },
            body: maybe { $0.bytes() })
    }

    mutating func delivery(depth: Int = 0) -> DeliverySettings {
        var reports: [String: DeliverySettings]?
        if depth < 2, random.chance(25) {
            reports = [:]
            for key in ["success", "failure", string()] where random.chance(50) { reports?[key] = delivery(depth: depth + 1) }
        }
        return DeliverySettings(
            request: request(), maxAttempts: int(), backoffMinNanos: integer(), backoffMaxNanos: integer(), parent: maybe { $0.string() },
            retryOn: maybe { $0.strings() }, maxRetryAfterNanos: random.chance(10) ? integer() : nil, reports: reports)
    }

    mutating func result() -> HTTPResult {
        HTTPResult(status: int(), headers: maybe { $0.strings() }, body: string(), truncated: random.chance(50))
    }

    mutating func deliveryCounters() -> DeliveryCounters {
        DeliveryCounters(attempts: int(), nextAttempt: maybe { $0.wallTime() }, lastStatus: maybe { $0.int() }, lastError: maybe { $0.string() })
    }

    mutating func poll() -> PollRecord {
        PollRecord(
            settings: PollSettings(
                request: request(), everyNanos: integer(), condition: string(), progressPointer: maybe { $0.string() },
                timeoutNanos: maybe { $0.integer() }, deadline: maybe { $0.wallTime() }, maxPolls: maybe { $0.int() }, maxFailures: int()),
            counters: PollCounters(
                polls: int(), failures: int(), progress: maybe { $0.double() }, lastStatus: maybe { $0.int() }, lastError: maybe { $0.string() },
                lastStart: maybe { $0.wallTime() }))
    }

    mutating func member() -> MemberRecord {
        MemberRecord(
            state: random.pick(MemberState.allCases), attempts: int(), lastStatus: maybe { $0.int() }, result: maybe { $0.result() },
            error: maybe { $0.string() })
    }

    mutating func group() -> GroupRecord {
        let count = random.below(4)
        return GroupRecord(
            settings: GroupSettings(
                members: (0..<count).map { _ in delivery() }, concurrency: int(), timeoutNanos: maybe { $0.integer() },
                deadline: maybe { $0.wallTime() }, onComplete: maybe { $0.delivery() }),
            counters: GroupCounters(members: (0..<count).map { _ in member() }, spawned: maybe { $0.string() }))
    }

    mutating func scheduleCounters() -> ScheduleCounters {
        ScheduleCounters(
            due: maybe { $0.wallTime() }, delayNanos: integer(), lastElapse: maybe { $0.wallTime() }, lastLateByNanos: maybe { $0.integer() },
            runs: int(), skipped: int(), missed: int(), running: maybe { $0.string() }, lastRun: maybe { $0.string() },
            lastOutcome: maybe { $0.random.pick(JobState.allCases) }, queued: random.chance(50), paused: random.chance(50))
    }

    mutating func schedule() -> ScheduleRecord {
        ScheduleRecord(
            settings: ScheduleSettings(
                calendar: maybe { _ in "*-*-* 09:00:00" }, cron: maybe { _ in "*/5 * * * *" }, everyNanos: maybe { $0.integer() },
                anchor: maybe { $0.wallTime() }, tz: maybe { $0.string() }, overlap: random.pick(ScheduleOverlap.allCases),
                catchUp: random.pick(ScheduleCatchUp.allCases), randomizedDelayNanos: integer(), fixedDelay: random.chance(50),
                request: maybe { $0.delivery() }),
            counters: scheduleCounters())
    }

    /// A detail with each part present or not; one kind's part most of the time, as rows have.
    mutating func detail() -> JobDetail {
        let chance = random.chance(20) ? 50 : 15
        return JobDetail(
            poll: random.chance(chance) ? poll() : nil, request: random.chance(chance) ? DeliveryRecord(settings: delivery(), counters: deliveryCounters()) : nil,
            group: random.chance(chance) ? group() : nil, schedule: random.chance(chance) ? schedule() : nil,
            onExpire: random.chance(chance) ? delivery() : nil, spawned: random.chance(chance) ? string() : nil,
            result: random.chance(chance) ? result() : nil, error: random.chance(chance) ? string() : nil)
    }

    mutating func attempt() -> AttemptInfo {
        AttemptInfo(
            number: int(), startedAt: wallTime(), durationMs: double(), address: maybe { $0.string() }, status: maybe { $0.int() },
            error: maybe { $0.string() }, headers: maybe { $0.strings() }, headersTruncated: maybe { $0.random.chance(50) })
    }

    // MARK: Mutations

    /// Values a mutation puts where a field was: each kind of JSON value, and the near misses.
    static var replacements: [Any] {
        [
            NSNull(), "x", "", "2026-11-24T06:00:00Z", "2026-13-01T00:00:00Z", "skip", "bogus", "active", "running", 0, 1, -1, 256,
            1.5, 1e3, Double(1 << 60), true, false, [Any](), [1, 2], ["a"], [NSNull()], [String: Any](), ["request": ["url": "u"]],
            [255, 0], [256], [-1], [1.5], [200.0], [1, "2"],
        ]
    }

    /// `document` changed in one place: a member removed, replaced, or added; a key repeated or
    /// written with an escape; or its bytes cut or flipped.
    mutating func mutated(_ document: String) -> String {
        switch random.below(11) {
        case 0: return repeatedKey(document)
        case 10: return escapedKey(document)
        case 1:
            var bytes = Array(document.utf8)
            guard !bytes.isEmpty else { return document }
            if random.chance(50) {
                bytes.removeSubrange(random.below(bytes.count)...)
            } else {
                bytes[random.below(bytes.count)] = random.pick(Array("{}[]\",:0n\\ x".utf8))
            }
            return String(decoding: bytes, as: UTF8.self)
        default:
            guard var tree = try? JSONSerialization.jsonObject(with: Data(document.utf8), options: [.fragmentsAllowed]) else { return document }
            var objects = 0
            count(tree, into: &objects)
            guard objects > 0 else { return document }
            var target = random.below(objects)
            tree = change(tree, target: &target)
            guard let data = try? JSONSerialization.data(withJSONObject: tree, options: [.fragmentsAllowed]) else { return document }
            return String(decoding: data, as: UTF8.self)
        }
    }

    private func count(_ value: Any, into objects: inout Int) {
        if let object = value as? [String: Any] {
            objects += 1
            for member in object.values { count(member, into: &objects) }
        } else if let array = value as? [Any] {
            for element in array { count(element, into: &objects) }
        }
    }

    /// The tree with the `target`th object (counted as `count` counts them) changed.
    private mutating func change(_ value: Any, target: inout Int) -> Any {
        if var object = value as? [String: Any] {
            if target == 0 {
                target = -1
                let keys = object.keys.sorted()
                switch random.below(3) {
                case 0 where !keys.isEmpty: object[random.pick(keys)] = nil
                case 1 where !keys.isEmpty: object[random.pick(keys)] = random.pick(Self.replacements)
                default: object[random.pick(["unknown", "success", "headers", "body"])] = random.pick(Self.replacements)
                }
                return object
            }
            target -= 1
            for key in object.keys.sorted() where target >= 0 { object[key] = change(object[key]!, target: &target) }
            return object
        }
        if var array = value as? [Any] {
            for index in array.indices where target >= 0 { array[index] = change(array[index], target: &target) }
            return array
        }
        return value
    }

    /// `document` with the first letter of one of its keys written as a `\u` escape.
    private mutating func escapedKey(_ document: String) -> String {
        let bytes = Array(document.utf8)
        let keyStarts = keyStarts(bytes)
        guard !keyStarts.isEmpty else { return document }
        let start = random.pick(keyStarts) + 1
        guard start < bytes.count, bytes[start] != UInt8(ascii: "\""), bytes[start] != UInt8(ascii: "\\"), bytes[start] < 0x80 else { return document }
        let escape = Array(String(format: "\\u%04x", Int(bytes[start])).utf8)
        return String(decoding: bytes[..<start] + escape + bytes[(start + 1)...], as: UTF8.self)
    }

    /// Where each key's opening quote is in `bytes`.
    private func keyStarts(_ bytes: [UInt8]) -> [Int] {
        var keyStarts: [Int] = []
        var index = 0
        var inString = false
        var start = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ":") { keyStarts.append(start) }
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                start = index
            }
            index += 1
        }
        return keyStarts
    }

    /// `document` with one of its keys given again just before it, holding another value.
    private mutating func repeatedKey(_ document: String) -> String {
        let bytes = Array(document.utf8)
        let keyStarts = keyStarts(bytes)
        guard !keyStarts.isEmpty else { return document }
        let keyStart = random.pick(keyStarts)
        var keyEnd = keyStart + 1
        while bytes[keyEnd] != UInt8(ascii: ":") || bytes[keyEnd - 1] != UInt8(ascii: "\"") { keyEnd += 1 }
        let value = random.pick(Self.replacements)
        let text = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        let inserted = Array(bytes[keyStart...keyEnd]) + Array(text.utf8) + Array(",".utf8)
        return String(decoding: bytes[..<keyStart] + inserted + bytes[keyStart...], as: UTF8.self)
    }
}
