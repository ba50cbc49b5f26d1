import Foundation
@testable import ReqdDaemon
import ReqdProtocol
import Testing

@Suite("Default socket directory")
struct PrivateDirectoryTests {
    @Test("the /tmp fallback directory is made private, and someone else's directory is refused")
    func privateDirectory() throws {
        let directory = TemporaryDirectory()
        let mine = directory.path + "/mine"
        try SocketPath.makePrivateDirectory(mine)
        var status = stat()
        #expect(lstat(mine, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o700)

        let link = directory.path + "/link"
        symlink(mine, link)
        #expect(throws: DaemonError.self) { try SocketPath.makePrivateDirectory(link) }

        let theirs = directory.path + "/theirs"
        mkdir(theirs, 0o777)
        // Only root can hand a directory to another uid; CI runs as root.
        if chown(theirs, 65534, 65534) == 0 {
            #expect(throws: DaemonError.self) { try SocketPath.makePrivateDirectory(theirs) }
        }
    }
}
