import Dispatch
import Foundation
import Glibc

/// The terminal `top` draws on: the alternate screen, no cursor, and keys read one at a time
/// without echo. `restore()` puts everything back; it runs however `top` ends, a signal included.
final class Terminal {
    /// What a signal handler needs to give the terminal back: set once, before any handler runs,
    /// and only read afterwards.
    private final class Saved: @unchecked Sendable {
        let settings: termios?
        init(_ settings: termios?) { self.settings = settings }

        func restore() {
            Terminal.write("\u{1B}[?25h\u{1B}[?1049l")
            if var settings { tcsetattr(0, TCSANOW, &settings) }
        }
    }

    private let saved: Saved
    private var signalSources: [any DispatchSourceSignal] = []

    /// Takes over the terminal: standard input in raw mode when it is a terminal, the alternate
    /// screen shown, and SIGINT, SIGTERM, SIGHUP and SIGQUIT set to give it back before `top` ends.
    init() {
        var original = termios()
        var raw = false
        if isatty(0) == 1, tcgetattr(0, &original) == 0 {
            var settings = original
            // No line editing and no echo. Ctrl-C still sends SIGINT, which the handler below takes.
            settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
            raw = tcsetattr(0, TCSANOW, &settings) == 0
        }
        saved = Saved(raw ? original : nil)
        let saved = saved
        for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                saved.restore()
                exit(number == SIGINT ? 0 : 128 + number)
            }
            source.resume()
            signalSources.append(source)
        }
        Terminal.write("\u{1B}[?1049h\u{1B}[?25l")
    }

    /// Writes to standard output, ignoring failure: after a hang-up the terminal is gone, and
    /// `top` must still end cleanly (Foundation's `FileHandle.write` would trap).
    static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Draws a frame over the last one, each line cleared to its end.
    func draw(_ lines: [String]) {
        Terminal.write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
    }

    /// Waits `seconds` for `q` or `Q`; other keys are read and ignored without cutting the wait
    /// short. True when one was pressed.
    func waitForQuit(within seconds: Double) -> Bool {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < end else { return false }
            var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min((end - now) / 1_000_000 + 1, 3_600_000)))
            guard ready > 0 else { continue }
            var byte: UInt8 = 0
            guard read(0, &byte, 1) == 1 else {
                // Input ended (not a terminal, or closed): wait out the interval, and never spin.
                usleep(useconds_t(min((end - now) / 1000, 1_000_000)))
                continue
            }
            if byte == UInt8(ascii: "q") || byte == UInt8(ascii: "Q") { return true }
        }
    }

    /// The window's size: rows and columns, with `$LINES` and `$COLUMNS` first.
    var size: (rows: Int, columns: Int) {
        var window = winsize()
        let known = ioctl(1, UInt(TIOCGWINSZ), &window) == 0 && window.ws_row > 0
        let environment = ProcessInfo.processInfo.environment
        let rows = environment["LINES"].flatMap(Int.init) ?? (known ? Int(window.ws_row) : 24)
        return (rows, Output.columns)
    }

    /// Gives the terminal back as it was.
    func restore() {
        for source in signalSources { source.cancel() }
        saved.restore()
    }
}
