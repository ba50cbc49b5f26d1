import Glibc

/// The one daemon that may use a state directory: an exclusive `flock` on its `reqd.lock`.
///
/// Two daemons on one store would fire the same deadlines and send the same requests, so the
/// second one must not start. The kernel lets a `flock` go when its process ends, however it
/// ends, so a daemon killed with SIGKILL never leaves a stale lock behind. The file also says who
/// holds it (`pid N`, for the second daemon's message) and, once let go, that the stop was clean
/// (`stopped`): a start that finds a daemon's pid there instead (it was killed, or the machine went
/// down) checks the store before it trusts it.
final class StateDirectoryLock: Sendable {
    /// The lock file.
    let path: String
    /// The last daemon on this directory let go of it in a clean stop.
    let lastStopWasClean: Bool
    private let descriptor: Int32

    private static let stoppedMark = "stopped\n"

    private init(path: String, descriptor: Int32, lastStopWasClean: Bool) {
        self.path = path
        self.descriptor = descriptor
        self.lastStopWasClean = lastStopWasClean
    }

    /// Takes the lock on `directory`, or throws `stateDirectoryLocked` at once, naming the
    /// directory and, when the file says, the daemon that holds it.
    static func acquire(in directory: String) throws(DaemonError) -> StateDirectoryLock {
        let path = directory + "/reqd.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw DaemonError(.stateDirectoryUnusable, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let previous = read(descriptor)
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(descriptor)
            guard reason == EWOULDBLOCK else {
                throw DaemonError(.stateDirectoryUnusable, "cannot lock \(path): \(String(cString: strerror(reason)))")
            }
            let holder = holderPID(in: read(path: path)).map { " (pid \($0))" } ?? ""
            throw DaemonError(
                .stateDirectoryLocked,
                "the state directory \(directory) is in use by another reqd\(holder); two daemons must not share a store")
        }
        // An empty file is a directory no daemon has used yet (or one from before the lock existed).
        let lock = StateDirectoryLock(path: path, descriptor: descriptor, lastStopWasClean: previous.isEmpty || previous == stoppedMark)
        lock.write("pid \(getpid())\n")
        return lock
    }

    /// Lets go of the lock; call once, after the store is closed. A `clean` stop is marked so, and
    /// the next start trusts the store without checking it.
    func release(clean: Bool) {
        if clean { write(Self.stoppedMark) }
        close(descriptor)
    }

    private func write(_ text: String) {
        _ = ftruncate(descriptor, 0)
        _ = text.utf8CString.withUnsafeBufferPointer { pwrite(descriptor, $0.baseAddress, $0.count - 1, 0) }
        _ = fsync(descriptor)
    }

    private static func read(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
    }

    private static func read(path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        return read(descriptor)
    }

    private static func holderPID(in text: String) -> Int32? {
        guard text.hasPrefix("pid ") else { return nil }
        return Int32(text.dropFirst(4).prefix { $0.isNumber })
    }
}
