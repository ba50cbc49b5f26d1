import ArgumentParser

/// `-q`: print only job ids, one per line, for scripts that want the id and nothing else.
struct QuietOption: ParsableArguments {
    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Print only job ids, one per line (--json wins).")
    var quiet = false
}
