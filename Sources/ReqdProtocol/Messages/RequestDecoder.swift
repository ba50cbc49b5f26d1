import Foundation

/// Decodes request lines into `Request`s, turning every failure into a wire error.
///
/// Not thread-safe: give each connection its own.
public struct RequestDecoder {
    private let decoder = JSONDecoder()

    public init() {}

    /// Decodes one line (without its newline).
    public func decode(_ line: [UInt8]) -> Result<Request, RequestDecodingFailure> {
        do {
            return .success(try decoder.decode(Request.self, from: Data(line)))
        } catch let failure as RequestDecodingFailure {
            return .failure(failure)
        } catch {
            // The line was not an object, or its id was missing or unreadable.
            return .failure(RequestDecodingFailure(id: nil, error: WireError(decoding: error)))
        }
    }
}
