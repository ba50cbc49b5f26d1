import TOMLKit
import Testing
@testable import ReqdDaemon

/// The daemon's TOML reader against TOMLKit (toml++, which passes the toml-test suite): every
/// document of `TOMLSubsetTests` must be read to the same values by both, and every one the
/// daemon refuses must be refused by TOMLKit too, except for what TOML allows and no setting takes.
///
/// TOMLKit is not the daemon's reader because it names a line only for a syntax error: a refused
/// setting (`socket.mode = "0999"`) could then not say where it is. This test holds the daemon's
/// own reader to TOMLKit's reading of TOML instead.
@Suite("TOML reader agrees with TOMLKit")
struct TOMLKitAgreementTests {
    typealias Value = TOMLSubset.Value

    /// What the daemon refuses on purpose although TOML allows it.
    static let subsetOnly = ["inline tables", "arrays of tables", "dates and times"]

    /// TOMLKit's reading, flattened to dotted keys as `TOMLSubset.parse` writes them; nil for a
    /// value the daemon has no case for (a date, an inline table in an array).
    private static func flatten(_ table: TOMLTable, prefix: String = "", into values: inout [String: Value]) -> Bool {
        for key in table.keys {
            guard let node = table[key] else { return false }
            let path = prefix + TOMLParser.written(key: key)
            if node.type == .table, let inner = node.table {
                guard flatten(inner, prefix: path + ".", into: &values) else { return false }
            } else {
                guard let value = value(node) else { return false }
                values[path] = value
            }
        }
        return true
    }

    private static func value(_ node: any TOMLValueConvertible) -> Value? {
        switch node.type {
        case .string: node.string.map(Value.string)
        case .int: node.int.map { .integer(Int64($0)) }
        case .double: node.double.map(Value.float)
        case .bool: node.bool.map(Value.boolean)
        case .array:
            node.array.flatMap { array in
                let elements = array.map { value($0) }
                return elements.contains(where: { $0 == nil }) ? nil : .array(elements.compactMap { $0 })
            }
        case .table, .date, .time, .dateTime: nil
        }
    }

    @Test("every valid document reads to the same values in TOMLKit")
    func validAgree() throws {
        for (document, expected) in TOMLSubsetTests.valid {
            let table: TOMLTable
            do {
                table = try TOMLTable(string: document)
            } catch {
                Issue.record("TOMLKit refuses what the daemon reads: \(document.debugDescription): \(error)")
                continue
            }
            var values: [String: Value] = [:]
            #expect(Self.flatten(table, into: &values), "\(document.debugDescription)")
            #expect(values == expected, "\(document.debugDescription)")
        }
    }

    @Test("every document the daemon refuses as TOML, TOMLKit refuses too")
    func invalidAgree() {
        var refusedByBoth = 0
        for (document, _, problem) in TOMLSubsetTests.invalid {
            let accepted = (try? TOMLTable(string: document)) != nil
            if Self.subsetOnly.contains(where: problem.contains) {
                #expect(accepted, "TOML allows it and only the daemon refuses it: \(document.debugDescription)")
            } else {
                #expect(!accepted, "TOMLKit reads what the daemon refuses (\(problem)): \(document.debugDescription)")
                refusedByBoth += 1
            }
        }
        #expect(refusedByBoth >= 50)
    }
}
