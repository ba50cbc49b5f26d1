/// A job's kind-specific part as stored: settings written once, counters that change as it runs.
///
/// Both encode into one flat JSON object inside the row's `detail`, so a field can move between
/// them without changing the stored format.
public struct WorkRecord<Settings: Codable & Sendable & Hashable, Counters: Codable & Sendable & Hashable>: Sendable, Hashable,
    Codable
{
    public var settings: Settings
    public var counters: Counters

    public init(settings: Settings, counters: Counters) {
        self.settings = settings
        self.counters = counters
    }

    public init(from decoder: any Decoder) throws {
        settings = try Settings(from: decoder)
        counters = try Counters(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try settings.encode(to: encoder)
        try counters.encode(to: encoder)
    }
}
