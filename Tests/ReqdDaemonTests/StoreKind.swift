import Testing

/// The databases a store test runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}
