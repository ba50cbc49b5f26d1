import Dispatch
import CSystemd
import Glibc
import Logging
import ReqdCore

/// Gives the memory glibc's allocator keeps free back to the system, and frees what the
/// scheduler's shrink pass replaced (`Disposal`), both off the scheduler's queue.
///
/// glibc keeps what a program frees for its next allocations, and returns only free space at the
/// top of a heap. After a burst of a million jobs, the freed headers and strings lie all over the
/// heaps, so the daemon's RSS stayed at its peak for good. `malloc_trim` returns every free page
/// in them (`madvise(MADV_DONTNEED)`). The core asks for it (`SchedulerEffect.releaseMemory`) when
/// its tables let go of 1 MiB of capacity or 65,536 jobs ended or were forgotten during a shrink
/// pass, which takes a burst, and at a moment when no deadline falls within 50 ms. It runs on a
/// queue of its own, but it holds each arena's lock while it walks it (25–60 ms after a million
/// jobs), and an allocation from that arena waits for it (BENCHMARKS.md, "Memory that comes
/// back").
final class MemoryRelease: Sendable {
    private let queue = DispatchQueue(label: "reqd.memory-release", qos: .utility)
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Trims the heaps soon; asks that arrive while one trim waits or runs each get their own,
    /// which finds little to do.
    func release() {
        queue.async { [logger] in
            let before = Self.residentBytes()
            let started = DispatchTime.now().uptimeNanoseconds
            malloc_trim(0)
            let took = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
            let after = Self.residentBytes()
            logger.info(
                "memory given back to the system",
                metadata: [
                    "memory.rss_before_mb": "\(before >> 20)", "memory.rss_after_mb": "\(after >> 20)",
                    "memory.trim_ms": "\(Int(took.rounded()))",
                ])
        }
    }

    /// Frees storage the scheduler let go of, on this queue instead of the scheduler's.
    func dispose(_ disposal: Disposal) {
        queue.async { disposal.free() }
    }

    /// The process's resident set, from `/proc/self/statm`; 0 when it cannot be read.
    static func residentBytes() -> Int {
        let descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return 0 }
        // "size resident shared ...", in pages.
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return 0 }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }
}
