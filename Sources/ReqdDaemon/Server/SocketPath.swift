import Glibc
import ReqdProtocol

/// Checks and prepares the path the daemon binds its socket to.
enum SocketPath {
    /// Makes `path` ready to bind: a stale socket from a crashed run is removed; a live daemon,
    /// a file that is not a socket, or a path that is too long is an error.
    static func prepare(_ path: String) throws(DaemonError) {
        guard path.utf8.count <= UnixSocket.maxPathBytes else {
            throw DaemonError(
                .socketPathTooLong,
                "socket path is \(path.utf8.count) bytes; Unix sockets allow at most \(UnixSocket.maxPathBytes): \(path)")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard (status.st_mode & S_IFMT) == S_IFSOCK else {
            throw DaemonError(.socketPathInUse, "\(path) exists and is not a socket; remove it or choose another path")
        }
        if isAccepting(path) {
            throw DaemonError(.alreadyRunning, "another reqd is already listening on \(path)")
        }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw DaemonError(.socketSetupFailed, "cannot remove the stale socket \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether something accepts connections on the socket at `path`.
    static func isAccepting(_ path: String) -> Bool {
        guard let fd = try? UnixSocket.connect(path: path) else { return false }
        close(fd)
        return true
    }

    /// Creates `directory` (and parents) with `mode` when missing.
    static func makeDirectory(_ directory: String, mode: mode_t) throws(DaemonError) {
        var current = ""
        for part in directory.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + part
            if mkdir(current, mode) != 0, errno != EEXIST {
                throw DaemonError(
                    .socketSetupFailed, "cannot create directory \(current): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Makes sure `directory` is a real directory owned by this user and closed to everyone else.
    ///
    /// Used for the `/tmp/reqd-UID` fallback, where another user could otherwise create the
    /// directory (or a symlink) first and intercept the socket.
    static func makePrivateDirectory(_ directory: String) throws(DaemonError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw DaemonError(.socketSetupFailed, "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard lstat(directory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw DaemonError(.socketSetupFailed, "\(directory) is not a directory (a symlink?); remove it")
        }
        guard status.st_uid == getuid() else {
            throw DaemonError(.socketSetupFailed, "\(directory) belongs to uid \(status.st_uid), not to you; remove it")
        }
        if status.st_mode & 0o077 != 0, chmod(directory, 0o700) != 0 {
            throw DaemonError(.socketSetupFailed, "cannot make \(directory) private: \(String(cString: strerror(errno)))")
        }
    }

    /// Applies the socket file's mode and, when given, its group.
    static func applyPermissions(_ path: String, mode: mode_t, group: String?) throws(DaemonError) {
        if let group, !group.isEmpty {
            guard let entry = getgrnam(group) else {
                throw DaemonError(.socketSetupFailed, "socket group '\(group)' does not exist")
            }
            // Already its group (the daemon's own, as under reqd.service): no chown, which the
            // unit's system call filter (~@privileged) refuses.
            var status = stat()
            let owned = stat(path, &status) == 0 && status.st_gid == entry.pointee.gr_gid
            guard owned || chown(path, uid_t.max, entry.pointee.gr_gid) == 0 else {
                throw DaemonError(
                    .socketSetupFailed,
                    "cannot give \(path) to group \(group): \(String(cString: strerror(errno))) (under reqd.service, give the group with reqd.socket's SocketGroup=)")
            }
        }
        guard chmod(path, mode) == 0 else {
            throw DaemonError(.socketSetupFailed, "cannot chmod \(path): \(String(cString: strerror(errno)))")
        }
    }
}
