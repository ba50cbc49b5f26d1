import Foundation
import Testing

final class Collected: @unchecked Sendable {
    // @unchecked Sendable: every access holds `lock`.
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()

    func set(_ data: Data, isOut: Bool) {
        lock.lock()
        if isOut { outData = data } else { errData = data }
        lock.unlock()
    }

    var out: String { lock.lock(); defer { lock.unlock() }; return String(decoding: outData, as: UTF8.self) }
    var err: String { lock.lock(); defer { lock.unlock() }; return String(decoding: errData, as: UTF8.self) }
}
