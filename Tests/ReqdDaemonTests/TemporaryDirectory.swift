import Foundation
import Logging
import ReqdDaemon
import ReqdProtocol
import Testing

/// A temporary directory removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/reqd-test-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        chmod(path, 0o755)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
