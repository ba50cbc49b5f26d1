/// One configuration key, described once: its name, the values it takes, the field of `Configuration`
/// it sets, when a new value takes effect, and what it means.
///
/// `Configuration.settings` lists them all. The key list, `Configuration.set`, the reloadable set and
/// the keys a reload leaves for a restart are derived from that table; ConfigurationTests hold
/// `config/reqd.toml` and the README's table equal to it.
struct Setting: Sendable {
    /// When a changed value takes effect.
    enum Effect: Sendable, Equatable {
        /// Only when the daemon starts again (`no` in the README's `reload` column).
        case restart
        /// At once on SIGHUP (`(reload)` in `config/reqd.toml`).
        case reload
        /// On SIGHUP, for connections accepted from then on (`(reload, new connections)`).
        case reloadForNewConnections
    }

    /// The key as the file (`[table]` and `key`), `--set` and the README write it, such as `jobs.retention`.
    let key: String
    let effect: Effect
    /// What the setting does, as the README's `meaning` column says it.
    let meaning: String
    private let writeField: @Sendable (inout Configuration, TOMLSubset.Value) throws(DaemonError) -> Void
    private let readField: @Sendable (Configuration) -> TOMLSubset.Value
    private let fieldDiffers: @Sendable (Configuration, Configuration) -> Bool
    private let copyField: @Sendable (inout Configuration, Configuration) -> Void

    /// A setting stored in `field`, whose values `kind` reads and shows.
    init<Value: Equatable & Sendable>(
        _ key: String, _ field: WritableKeyPath<Configuration, Value> & Sendable, _ kind: Kind<Value>, _ effect: Effect,
        _ meaning: String
    ) {
        self.key = key
        self.effect = effect
        self.meaning = meaning
        writeField = { configuration, value throws(DaemonError) in configuration[keyPath: field] = try kind.parse(key, value) }
        readField = { kind.show($0[keyPath: field]) }
        fieldDiffers = { $0[keyPath: field] != $1[keyPath: field] }
        copyField = { $0[keyPath: field] = $1[keyPath: field] }
    }

    /// Whether SIGHUP applies a new value (at once or for new connections).
    var isReloadable: Bool { effect != .restart }

    /// Reads `value` (from the file, or a string from the environment or a flag) into `configuration`.
    func set(_ value: TOMLSubset.Value, in configuration: inout Configuration) throws(DaemonError) {
        try writeField(&configuration, value)
    }

    /// The setting's value in `configuration` as `config/reqd.toml` writes it, such as `"1h"` or `1048576`.
    func documentedValue(in configuration: Configuration) -> TOMLSubset.Value {
        readField(configuration)
    }

    /// Whether `new` holds another value for this setting than `old`.
    func differs(from old: Configuration, in new: Configuration) -> Bool {
        fieldDiffers(old, new)
    }

    /// Gives `configuration` the value this setting has in `source`.
    func copy(from source: Configuration, into configuration: inout Configuration) {
        copyField(&configuration, source)
    }
}
