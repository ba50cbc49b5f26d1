import Foundation
import Logging
import ReqdDaemon
import ReqdProtocol
import Testing

extension Dictionary where Key == String, Value == Any {
    var result: [String: Any]? { self["result"] as? [String: Any] }
    var errorCode: String? { (self["error"] as? [String: Any])?["code"] as? String }
    var errorMessage: String? { (self["error"] as? [String: Any])?["message"] as? String }
    var job: [String: Any]? { result?["job"] as? [String: Any] }
}
