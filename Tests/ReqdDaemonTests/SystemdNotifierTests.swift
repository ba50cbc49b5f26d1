import Glibc
import ReqdTestSupport
import Testing

@testable import ReqdDaemon

@Suite("SystemdNotifier: the datagrams systemd reads")
struct SystemdNotifierTests {
    @Test("a reload's start carries RELOADING=1 and MONOTONIC_USEC= of that moment, as Type=notify-reload needs")
    func reloadingCarriesMonotonicTime() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/notify"
        let receiver = try NotifySocket.bind(path: path)
        defer { close(receiver) }
        setenv("NOTIFY_SOCKET", path, 1)
        defer { unsetenv("NOTIFY_SOCKET") }

        let before = SystemdNotifier.monotonicMicros()
        SystemdNotifier().reloading()
        let after = SystemdNotifier.monotonicMicros()
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        try #require(count > 0)
        let fields = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n")
        #expect(fields.contains("RELOADING=1"))
        let stamp = try #require(fields.first { $0.hasPrefix("MONOTONIC_USEC=") }.flatMap { UInt64($0.dropFirst(15)) })
        #expect(stamp >= before && stamp <= after)
    }
}
