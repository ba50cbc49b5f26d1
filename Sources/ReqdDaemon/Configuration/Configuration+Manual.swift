import Foundation
import ReqdProtocol

extension Configuration {
    /// The manual page reqd.toml(5), in mdoc, made from the table of settings: every key with its
    /// default, when a new value takes effect, and what it means. `scripts/install` writes it, so
    /// the page cannot drift from the daemon.
    public static func manualPage() -> String {
        let defaults = Configuration()
        var page = """
            .Dd \(today())
            .Dt REQD.TOML 5
            .Os
            .Sh NAME
            .Nm reqd.toml
            .Nd configuration file of the reqd daemon
            .Sh SYNOPSIS
            .Pa /etc/reqd/reqd.toml
            .Sh DESCRIPTION
            .Xr reqd 8
            runs on embedded defaults. Settings come, lowest precedence first, from the defaults, this file
            .Pq Fl -config Ar FILE No or Ev REQD_CONFIG ,
            environment variables
            .Ev REQD_ Ns Ar TABLE Ns _ Ns Ar KEY ,
            and
            .Fl -set Ar table.key=value .
            .Pp
            The file is TOML 1.0, read strictly: whatever TOML forbids is refused with its line named,
            such as a number with a leading zero (write a mode as
            .Ql \\(dq0660\\(dq
            or
            .Ql 0o660 ) ,
            and so are inline tables, arrays of tables and dates, which no setting takes.
            .Ic reqd --check-config
            validates a file and exits 0, or 78 naming the key.
            .Pp
            SIGHUP
            .Pq Ic systemctl reload reqd
            re-reads everything: a setting marked
            .Sy reload
            takes effect at once (for some, on new connections); the others are reported as needing a
            restart and keep their running value until then. Durations read as
            .Ql 500ms ,
            .Ql 3s ,
            .Ql 15m ,
            .Ql 1h30m .
            .Sh SETTINGS
            .Bl -tag -width Ds

            """
        for setting in settings {
            let effect =
                switch setting.effect {
                case .restart: "restart"
                case .reload: "reload"
                case .reloadForNewConnections: "reload, new connections"
                }
            let value = escaped(tomlText(setting.documentedValue(in: defaults))).replacing("\"", with: "\\(dq")
            page += ".It Cm \(setting.key) No = Ql \(value)\n"
            page += "(\(effect)) \(escaped(setting.meaning.replacingBackticks()))\n"
        }
        page += """
            .El
            .Sh TARGETS
            A table
            .Ql [targets.\\(dqHOST\\(dq] ,
            .Ql [targets.\\(dqHOST:PORT\\(dq]
            or
            .Ql [targets.\\(dq*.DOMAIN\\(dq]
            limits the requests to one target, a host and port;
            .Ql [targets.default]
            applies to every target. The most specific table that matches applies, and a key it leaves
            out comes from
            .Ql [targets.default] .
            Every key is optional and reloadable, from the file or
            .Fl -set Ar targets.\\(dqHOST\\(dq.KEY=VALUE .
            .Bl -tag -width Ds
            .It Cm rate No = Ql \\(dq20/s\\(dq
            A token bucket refilled evenly:
            .Ql N/s ,
            .Ql N/m
            or
            .Ql N/h .
            No limit unless set.
            .It Cm burst No = Ql 1
            The bucket's size. No second holds more than rate plus burst requests.
            .It Cm concurrency No = Ql 64
            Requests in flight to the target; by default, and at most,
            .Cm http.max_connections_per_host .
            .It Cm decompress No = Ql true
            Requests ask for a gzip or deflate answer and it is decoded, within
            .Cm http.max_response_bytes ;
            .Ql false
            asks for an uncompressed one.
            .It Cm breaker_failure_ratio No = Ql 0.7
            Turns on a circuit breaker: it opens when at least this share of the requests that
            ended in the window failed (no answer, a timeout or a 5xx). While it is open nothing is
            sent to the target and its jobs are held; after the open time one probe request goes,
            whose success closes it and whose failure opens it again. Off unless set.
            .It Cm breaker_min_requests No = Ql 20
            Requests that must have ended in the window before the breaker may open.
            .It Cm breaker_window No = Ql \\(dq1m\\(dq
            The window the ratio is taken over, from 1s to 24h.
            .It Cm breaker_open_for No = Ql \\(dq30s\\(dq
            How long the breaker stays open before its probe.
            .It Cm ca_file No = Ql /etc/reqd/partner-ca.pem
            A PEM bundle of CA certificates the target is trusted by, besides the system's roots;
            by default
            .Cm http.ca_file .
            .It Cm ca_only No = Ql false
            .Ql true
            trusts only
            .Cm ca_file .
            .It Cm client_cert No = Ql /etc/reqd/client.pem , Cm client_key No = Ql /etc/reqd/client.key
            A client certificate and its unencrypted key, presented when the server asks for one.
            The files are read at start and at reload; no setting turns verification off.
            .It Cm sign_secret_file No = Ql /etc/reqd/hooks.secret
            Signs every request to the target the Standard Webhooks way
            .Pf ( Ql webhook-id ,
            .Ql webhook-timestamp ,
            .Ql webhook-signature ) ,
            with each
            .Ql whsec_
            secret the file holds, one a line. The file is read at start and at reload.
            .El
            .Pp
            A request waiting for its target spends no attempt; waiting requests are served in turn
            across users; a 429 or 503 answer with Retry-After pauses the whole target.
            .Ic reqd-client status --targets
            shows each target in use.
            .Sh ENVIRONMENT
            .Bl -tag -width Ds
            .It Ev REQD_CONFIG
            The configuration file, when
            .Fl -config
            is not given.
            .It Ev REQD_ Ns Ar TABLE Ns _ Ns Ar KEY
            Any setting of the table above, such as
            .Ev REQD_JOBS_RETENTION=2h ;
            not a target's, which the file and
            .Fl -set
            give.
            .It Ev http_proxy , https_proxy , no_proxy
            Proxies, read at start as curl reads them (the upper-case names too).
            .El
            .Sh FILES
            .Bl -tag -width Ds
            .It Pa /etc/reqd/reqd.toml
            This file; every setting, commented, with its default.
            .El
            .Sh SEE ALSO
            .Xr reqd 8 ,
            .Xr reqd-client 1

            """
        return page
    }

    /// Today as mdoc's `.Dd` wants it, such as `November 24, 2026`.
    private static func today() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "MMMM d, yyyy"
        return formatter.string(from: Date())
    }

    /// A value as the file writes it.
    private static func tomlText(_ value: TOMLSubset.Value) -> String {
        switch value {
        case .string(let text): "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
        case .integer(let number): "\(number)"
        case .float(let number): "\(number)"
        case .boolean(let flag): "\(flag)"
        case .array(let elements): "[" + elements.map(tomlText).joined(separator: ", ") + "]"
        }
    }

    /// Text made safe for a line of mdoc: backslashes escaped, and no line starting with a control character.
    private static func escaped(_ text: String) -> String {
        let safe = text.replacing("\\", with: "\\e")
        return safe.hasPrefix(".") || safe.hasPrefix("'") ? "\\&" + safe : safe
    }
}

extension String {
    /// `code` spans written as plain quotes, since mdoc has no inline code markup in running text.
    fileprivate func replacingBackticks() -> String {
        var result = ""
        var open = true
        for character in self {
            if character == "`" {
                result += open ? "\u{201C}" : "\u{201D}"
                open.toggle()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
