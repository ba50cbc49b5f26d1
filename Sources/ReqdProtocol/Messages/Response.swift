/// A reply line: `{"id":..,"ok":true,"result":..}` or `{"id":..,"ok":false,"error":{"code":..,"message":..}}`.
public struct Response: Sendable, Hashable {
    /// The request's id, or nil when the line had none that could be read.
    public var id: RequestID?
    public var outcome: Result<ReplyBody, WireError>

    public init(id: RequestID?, outcome: Result<ReplyBody, WireError>) {
        self.id = id
        self.outcome = outcome
    }
}

extension Response: Encodable {
    enum CodingKeys: String, CodingKey { case id, ok, result, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let id {
            try container.encode(id, forKey: .id)
        } else {
            try container.encodeNil(forKey: .id)
        }
        switch outcome {
        case .failure(let error):
            try container.encode(false, forKey: .ok)
            try container.encode(error, forKey: .error)
        case .success(let body):
            try container.encode(true, forKey: .ok)
            switch body {
            case .hello(let value): try container.encode(value, forKey: .result)
            case .registered(let value): try container.encode(value, forKey: .result)
            case .cancelled(let value): try container.encode(value, forKey: .result)
            case .summary(let value): try container.encode(value, forKey: .result)
            case .job(let value): try container.encode(value, forKey: .result)
            case .jobs(let value): try container.encode(value, forKey: .result)
            case .watching(let value): try container.encode(value, forKey: .result)
            case .unwatched(let value): try container.encode(value, forKey: .result)
            case .metrics(let value): try container.encode(value, forKey: .result)
            }
        }
    }
}
