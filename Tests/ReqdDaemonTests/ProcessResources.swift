import Foundation

/// What this process holds right now, from /proc: open descriptors, threads and resident memory.
struct ProcessResources: CustomStringConvertible {
    var descriptors: Int
    var threads: Int
    var residentBytes: Int

    static func current() -> ProcessResources {
        let entries = { (path: String) in (try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? -1 }
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let residentPages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? -1
        return ProcessResources(
            descriptors: entries("/proc/self/fd"), threads: entries("/proc/self/task"),
            residentBytes: residentPages * Int(sysconf(Int32(_SC_PAGESIZE))))
    }

    var description: String {
        "\(descriptors) descriptors, \(threads) threads, \(residentBytes / 1024) KiB resident"
    }
}
