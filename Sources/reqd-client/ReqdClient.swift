import ArgumentParser
import ReqdProtocol

/// `reqd-client`: turns arguments into protocol requests and renders the replies. No job logic.
@main
struct ReqdClient: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reqd-client",
        abstract: "Talk to the reqd daemon: register jobs, cancel them, watch and wait for them.",
        discussion: """
            Examples:
              # Count down 3 minutes, shown live; the same key again replaces it
              reqd-client register-countdown --key tea --in 3m --follow
              # Wait for a remote build to finish, checking every 5 seconds
              reqd-client register-poll URL --every 5s --until '/state == "done"' --wait
              # Deliver a webhook, retried until it is taken
              reqd-client submit POST URL -H 'Content-Type: text/plain' -d @event.txt
              # Check two services at once and hear when both have answered
              reqd-client group --request URL1 --request POST URL2 -d '{}' --wait
              # Send again every request whose attempts ran out
              reqd-client retry --all --state dead
              # Drop a dead letter you have dealt with, without waiting for its retention
              reqd-client delete JOB_ID
              # Stop everything started for one deploy
              reqd-client cancel --scope deploy-42
              # See one job in full, or the daemon's summary without an id
              reqd-client status JOB_ID
              # List what is still running, or only the ids with -q
              reqd-client list --state active
              # Follow every job of one deploy live
              reqd-client watch --scope deploy-42
              # Block a script until a job ends; the exit status tells how
              reqd-client wait JOB_ID --timeout 5m
              # Watch the daemon live, full screen (q quits)
              reqd-client top --interval 2s
              # POST a hook every weekday at 09:00 Berlin time, stored, exact across DST
              reqd-client register-schedule --calendar 'Mon..Fri 09:00' --tz Europe/Berlin POST https://hooks.example/standup
              # GET a URL every 5 minutes; pause and resume it by key
              reqd-client register-schedule --every 5m https://status.example/ping --key ping
              reqd-client pause --key ping
              reqd-client resume --key ping
              # When a calendar expression next elapses, DST included (no daemon needed)
              reqd-client calendar 'Mon..Fri 09:00 Europe/Berlin' --iterations 3
              # The counters and histograms a Prometheus server would scrape
              reqd-client metrics | grep reqd_http_responses_total

            Exit statuses: 0 success; 1 other error; 2 job failed; 3 job cancelled; 4 job timed out; 5 job dead; \
            10 unknown job; 11 invalid request; 12 daemon unavailable for new work; 13 protocol mismatch; \
            14 daemon internal error; 64 bad usage; 69 daemon unreachable; 124 wait --timeout ran out.
            """,
        version: ProtocolInfo.softwareVersion,
        subcommands: [
            RegisterCountdown.self, RegisterPoll.self, Submit.self, Group.self, Retry.self, Delete.self, Cancel.self, Status.self,
            List.self, Watch.self, Wait.self, MetricsCommand.self, Top.self, RegisterSchedule.self, Pause.self, Resume.self,
            CalendarCommand.self,
        ])

    @OptionGroup var global: GlobalOptions
}
