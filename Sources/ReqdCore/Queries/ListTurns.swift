/// The `list`s in progress, walked a slice a turn, connection by connection in turn: a client
/// that pipelines many lists waits for its own, and another client's list gets every other slice.
struct ListTurns: Sendable {
    /// Each connection's lists in progress, in the order they came.
    private var byConnection: [ConnectionID: [ListQuery]] = [:]
    /// The connections with lists in progress, whose turn is next first.
    private var order: [ConnectionID] = []

    /// Whether no list is in progress.
    var isEmpty: Bool { order.isEmpty }

    /// Adds a list after the others of its connection.
    mutating func append(_ query: ListQuery) {
        if byConnection[query.connection] == nil { order.append(query.connection) }
        byConnection[query.connection, default: []].append(query)
    }

    /// Takes the list whose turn it is; `putBack` returns it, not done, to its connection's front.
    mutating func next() -> ListQuery? {
        guard !order.isEmpty else { return nil }
        let connection = order.removeFirst()
        guard let query = byConnection[connection]?.first else { return nil }
        byConnection[connection]?.removeFirst()
        if byConnection[connection]?.isEmpty == true {
            byConnection[connection] = nil
        } else {
            order.append(connection)
        }
        return query
    }

    /// Returns a list that is not done: it goes on before its connection's later lists, and its
    /// connection waits for the other connections' turns.
    mutating func putBack(_ query: ListQuery) {
        if byConnection[query.connection] == nil { order.append(query.connection) }
        byConnection[query.connection, default: []].insert(query, at: 0)
    }

    /// Forgets a closed connection's lists.
    mutating func removeAll(of connection: ConnectionID) {
        guard byConnection.removeValue(forKey: connection) != nil else { return }
        order.removeAll { $0 == connection }
        if order.isEmpty { byConnection = [:] }
    }
}
