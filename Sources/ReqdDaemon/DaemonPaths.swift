import Glibc

/// Where the daemon puts its socket and its state when the configuration does not say.
public enum DaemonPaths {
    /// The socket path: `$RUNTIME_DIRECTORY/reqd.sock` under systemd, else `$XDG_RUNTIME_DIR/reqd/reqd.sock`,
    /// else `/tmp/reqd-UID/reqd.sock` in a directory private to the user.
    public static func socketPath(configured: String?, environment: [String: String]) -> String {
        if let configured { return configured }
        if let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first, !runtime.isEmpty {
            return "\(runtime)/reqd.sock"
        }
        if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty {
            return "\(xdg)/reqd/reqd.sock"
        }
        return "/tmp/reqd-\(getuid())/reqd.sock"
    }

    /// The state directory: `$STATE_DIRECTORY` under systemd, else `$XDG_STATE_HOME/reqd`,
    /// else `~/.local/state/reqd`.
    public static func stateDirectory(configured: String?, environment: [String: String]) -> String {
        if let configured { return configured }
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !state.isEmpty {
            return String(state)
        }
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty {
            return "\(xdg)/reqd"
        }
        let home = environment["HOME"] ?? getpwuid(getuid()).map { String(cString: $0.pointee.pw_dir) } ?? "/tmp"
        return "\(home)/.local/state/reqd"
    }
}
