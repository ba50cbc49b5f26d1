/// A value bound to a store statement's parameter; each backend binds it in its own way.
enum StoreValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null

    init(_ value: Int64?) { self = value.map(StoreValue.integer) ?? .null }
    init(_ value: Int?) { self = value.map { StoreValue.integer(Int64($0)) } ?? .null }
    init(_ value: Double?) { self = value.map(StoreValue.real) ?? .null }
    init(_ value: String?) { self = value.map(StoreValue.text) ?? .null }
}
