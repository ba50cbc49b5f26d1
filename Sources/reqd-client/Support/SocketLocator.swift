import Foundation

/// Finds the daemon's socket the way the daemon picks it, so no flag is needed.
enum SocketLocator {
    /// The explicit path, else `$REQD_SOCKET`, else the first candidate that exists.
    static func locate(explicit: String?) -> (path: String, tried: [String]) {
        if let explicit { return (explicit, [explicit]) }
        let environment = ProcessInfo.processInfo.environment
        if let fromEnvironment = environment["REQD_SOCKET"], !fromEnvironment.isEmpty {
            return (fromEnvironment, [fromEnvironment])
        }
        var candidates: [String] = []
        if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty { candidates.append("\(xdg)/reqd/reqd.sock") }
        candidates.append("/tmp/reqd-\(getuid())/reqd.sock")
        candidates.append("/run/reqd/reqd.sock")
        let found = candidates.first { FileManager.default.fileExists(atPath: $0) }
        return (found ?? candidates[0], candidates)
    }
}
