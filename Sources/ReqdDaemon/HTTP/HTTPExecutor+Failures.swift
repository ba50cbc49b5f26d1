import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import ReqdProtocol

/// How a failed request is judged and put in words: whether the network could not reach the
/// target, and a sentence for the job's error that never carries the request's headers or body.
extension HTTPExecutor {
    /// Whether a request failed because the network cannot reach its target: no route
    /// (ENETUNREACH), host unreachable (EHOSTUNREACH), or name resolution failing for now
    /// (EAI_AGAIN); or because the daemon had no descriptor left to open a connection with
    /// (EMFILE, ENFILE), which clients holding them should not turn into spent attempts. A refused
    /// connection, a timeout, or a name that does not exist are not.
    static func isUnreachable(_ error: any Error) -> Bool {
        if let io = error as? IOError { return [ENETUNREACH, EHOSTUNREACH, EMFILE, ENFILE].contains(io.errnoCode) }
        if let unknown = error as? SocketAddressError.UnknownHost { return unknown.errorCode == Int(EAI_AGAIN) }
        guard let connect = error as? NIOConnectionError else { return false }
        if let dns = connect.dnsAError ?? connect.dnsAAAAError, connect.connectionErrors.isEmpty {
            return isUnreachable(dns)
        }
        return !connect.connectionErrors.isEmpty && connect.connectionErrors.allSatisfy { isUnreachable($0.error) }
    }

    /// Whether `error` is an answer reqd would not take: a body over `http.max_response_bytes`,
    /// decoded or not, or one whose compression could not be decoded.
    static func isRejectedAnswer(_ error: any Error) -> Bool {
        error is ResponseAccumulator.ResponseTooBigError || error is NIOHTTPDecompression.DecompressionError
    }

    /// Words for a failed request; never the request's headers or body.

    static func describe(_ error: any Error, settings: HTTPSettings) -> String {
        if error is ResponseAccumulator.ResponseTooBigError {
            return "the response body is larger than \(settings.maxResponseBytes) bytes"
        }
        if let decompression = error as? NIOHTTPDecompression.DecompressionError {
            return decompression == .limit
                ? "the compressed answer decodes to more than \(settings.maxResponseBytes) bytes (http.max_response_bytes)"
                : "the compressed answer could not be decoded (\(decompression))"
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout:
                return "nothing read for \(DurationText.format(nanoseconds: settings.readTimeoutNanos))"
            case .connectTimeout, .httpProxyHandshakeTimeout:
                return "could not connect within \(DurationText.format(nanoseconds: settings.connectTimeoutNanos))"
            case .remoteConnectionClosed:
                return "the server closed the connection before answering"
            case .redirectLimitReached:
                return "more than \(settings.maxRedirects) redirects"
            case .redirectCycleDetected:
                return "the redirects go round in a cycle"
            case .cancelled:
                return "the request was cancelled"
            case .proxyAuthenticationRequired:
                return "the proxy refused the request for lack of valid credentials (407)"
            case .invalidProxyResponse:
                return "the proxy gave no tunnel to the target"
            default:
                return "HTTP client error: \(client.shortDescription)"
            }
        }
        if let connect = error as? NIOConnectionError {
            if let dns = connect.dnsAError ?? connect.dnsAAAAError, connect.connectionErrors.isEmpty {
                return "could not resolve \(connect.host): \(describe(dns, settings: settings))"
            }
            let reasons = Set(connect.connectionErrors.map { describe($0.error, settings: settings) }).sorted()
            let detail = reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")
            return "could not connect to \(connect.host):\(connect.port)\(detail)"
        }
        if let tls = error as? NIOSSLError {
            if case .handshakeFailed(let reasons) = tls {
                let text = "\(reasons)"
                if text.contains("CERTIFICATE_VERIFY_FAILED") {
                    return "the server's certificate could not be verified (CERTIFICATE_VERIFY_FAILED: an unknown CA, "
                        + "an expired certificate, or another name); a private CA goes in the target's ca_file"
                }
                return "the TLS handshake failed: \(text)"
            }
            return "TLS: \(tls)"
        }
        if let redirect = error as? HopRecordingDelegate.CrossOriginRedirect {
            return "refused to follow a redirect to \(redirect.target): the target signs its requests or presents a client "
                + "certificate, which must not go to another origin"
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the server's certificate does not name the host the request is for (\(extra))"
        }
        if let unknown = error as? SocketAddressError.UnknownHost {
            return unknown.errorDescription
        }
        if let io = error as? IOError {
            if io.errnoCode == EMFILE || io.errnoCode == ENFILE {
                return "the daemon is out of file descriptors (RLIMIT_NOFILE \(DescriptorBudget.openFileLimit))"
            }
            return "connection error: \(String(cString: strerror(io.errnoCode)))"
        }
        return "request failed: \(String(describing: error).prefix(200))"
    }
}
