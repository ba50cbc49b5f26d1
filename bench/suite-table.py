#!/usr/bin/env python3
"""Prints bench/run's table from its results file: one `key=v1 v2 v3` line per measurement.

Usage: bench/suite-table.py RESULTS RUNS
"""
import statistics, sys, os
r = {k: [float(x) for x in v.split()] for k, v in (line.strip().split("=", 1) for line in open(sys.argv[1]) if "=" in line)}
def cell(k, unit="", fmt="{:,.0f}"):
    v = r[k]
    return f"{fmt.format(statistics.median(v))}{unit} ({fmt.format(min(v))}–{fmt.format(max(v))})"
def lateness(suffix):
    m = lambda k: "{:.3f}".format(statistics.median(r[k]))
    return f"p50 {m('latep50' + suffix)}, p99 {cell('latep99' + suffix, ' ms', '{:.3f}')}, max {m('latemax' + suffix)} ms"
def ratio(a, b):
    return statistics.median(r[a]) / statistics.median(r[b])
med = lambda k: statistics.median(r[k])
rows = [
    ("control plane, 1 client", cell("control1", "/s"), "Redis SET -c 1 (no persistence) " + cell("redis1", "/s"), f"{ratio('control1','redis1'):.2f}", "≥ 0.8", ratio('control1','redis1') >= 0.8),
    ("control plane, 50 clients", cell("control50", "/s"), "Redis SET -c 50 " + cell("redis50", "/s"), f"{ratio('control50','redis50'):.2f}", "≥ 1.0", ratio('control50','redis50') >= 1.0),
    ("pipelined, 1 connection", cell("pipelined", "/s"), "Redis SET -c 50 -P 16 " + cell("redisP", "/s"), f"{ratio('pipelined','redisP'):.2f}", "≥ 0.3", ratio('pipelined','redisP') >= 0.3),
    ("registration rate at the default log level (info)", cell("pipelinedInfo", "/s"), "the pipelined row, at warning " + cell("pipelined", "/s"), f"{ratio('pipelinedInfo','pipelined'):.2f}", "≥ 0.97", ratio('pipelinedInfo','pipelined') >= 0.97),
    ("durable, 1 client", cell("durable1", "/s"), "Redis appendfsync always -c 1 " + cell("always1", "/s"), f"{ratio('durable1','always1'):.2f}", "≥ 1.0", ratio('durable1','always1') >= 1.0),
    ("durable, 50 clients", cell("durable50", "/s"), "Redis appendfsync always -c 50 " + cell("always50", "/s"), f"{ratio('durable50','always50'):.2f}", "≥ 1.0", ratio('durable50','always50') >= 1.0),
    ("timer lateness, 100k active, 20k expiring/s", lateness("100000"),
     "bare timerfd loop: p50 {:.3f}, p99 {}, max {:.3f} ms".format(med("floorp50"), cell("floor", " ms", "{:.3f}"), med("floormax")),
     f"p99 {ratio('latep99100000','floor'):.1f}× the floor", "p99 ≤ 2× the floor", ratio('latep99100000','floor') <= 2),
    ("timer lateness, 1M active, 20k expiring/s", lateness("1000000"), "-", "-", "p99 ≤ 1 ms", med("latep991000000") <= 1),
    ("timer lateness, 1M active, while another client sends list and status back to back",
     "p50 {:.3f}, p99 {}, max {:.3f} ms; {:,.0f} queries, p99 {:.3f} ms each".format(
         med("queriedlatep50"), cell("queriedlatep99", " ms", "{:.3f}"), med("queriedlatemax"), med("queries"), med("queryp99")),
     "-", "-", "p99 ≤ 1 ms", med("queriedlatep99") <= 1),
    ("HTTP drive rate, 10,000 poll jobs", cell("http", "/s"), "wrk -t2 -c64 " + cell("wrk", "/s"), f"{ratio('http','wrk'):.2f}", "≥ 0.5", ratio('http','wrk') >= 0.5),
    ("HTTP drive rate, 50,000 submits", cell("submit", "/s"), "wrk -t2 -c64 " + cell("wrk", "/s"), f"{ratio('submit','wrk'):.2f}", "≥ 0.5", ratio('submit','wrk') >= 0.5),
    ("HTTP drive rate, 10,000 poll jobs, against the bare client", cell("http", "/s"), "bare AsyncHTTPClient as reqd configures it, 64 loops " + cell("bare", "/s"), f"{ratio('http','bare'):.2f}", "≥ 0.8", ratio('http','bare') >= 0.8),
    ("HTTP drive rate, 50,000 submits, against the bare client", cell("submit", "/s"), "bare AsyncHTTPClient as reqd configures it, 64 loops " + cell("bare", "/s"), f"{ratio('submit','bare'):.2f}", "≥ 0.8", ratio('submit','bare') >= 0.8),
    ("memory per active countdown, 1M", cell("rss1000000", " B"), "Redis used_memory per key, 1M keys " + cell("redismem", " B"), f"{ratio('rss1000000','redismem'):.1f}×", "≤ 2×", ratio('rss1000000','redismem') <= 2),
    ("memory per schedule, 1M (every hour, no request; and on the calendar `*:0/15`)", cell("sched_RSS_PER_SCHEDULE_EVERY", " B") + "; calendar " + cell("sched_RSS_PER_SCHEDULE_CALENDAR", " B"),
     "a countdown in the same run " + cell("sched_RSS_PER_COUNTDOWN", " B"),
     f"{ratio('sched_RSS_PER_SCHEDULE_EVERY','sched_RSS_PER_COUNTDOWN'):.2f}×; calendar {ratio('sched_RSS_PER_SCHEDULE_CALENDAR','sched_RSS_PER_COUNTDOWN'):.2f}×", "≤ 2× a countdown",
     max(ratio('sched_RSS_PER_SCHEDULE_EVERY','sched_RSS_PER_COUNTDOWN'), ratio('sched_RSS_PER_SCHEDULE_CALENDAR','sched_RSS_PER_COUNTDOWN')) <= 2),
    ("elapse lateness, 100k schedules on `*:*:0/1` (100k elapses at once every second)",
     "late_by p50 {:.3f}, p99 {} ms; as the events arrive: p50 {:.0f}, p99 {:.0f} ms".format(
         med("schedlate_P50_MS"), cell("schedlate_P99_MS", " ms", "{:.3f}"), med("schedlate_ARRIVAL_P50_MS"), med("schedlate_ARRIVAL_P99_MS")),
     "the 100k countdown row's p99 " + cell("latep99100000", " ms", "{:.3f}"),
     f"{ratio('schedlate_P99_MS','latep99100000'):.0f}×", "p99 ≤ 2× the countdown row", ratio('schedlate_P99_MS', 'latep99100000') <= 2),
    ("the same 100k schedules, each with `randomized_delay_ms` 900 (100k elapses a second, spread over it)",
     "late_by p50 {:.3f}, p99 {}, max {:.3f} ms".format(med("schedspread_P50_MS"), cell("schedspread_P99_MS", " ms", "{:.3f}"), med("schedspread_MAX_MS")),
     "the 100k countdown row's p99 " + cell("latep99100000", " ms", "{:.3f}"),
     f"{ratio('schedspread_P99_MS','latep99100000'):.0f}×", "p99 ≤ 2× the countdown row", ratio('schedspread_P99_MS', 'latep99100000') <= 2),
    ("the burst's shape for countdowns: 5 bursts of 100k countdowns, one burst due on each whole second",
     "late_by p50 {:.3f}, p99 {} ms; as the events arrive: p99 {:.0f} ms".format(
         med("burst_P50_MS"), cell("burst_P99_MS", " ms", "{:.3f}"), med("burst_ARRIVAL_P99_MS")),
     "bare timerfd loop, one deadline a second: p99 " + cell("floorsparse", " ms", "{:.3f}"),
     f"the schedules' burst p99 {ratio('schedlate_P99_MS','burst_P99_MS'):.2f}× the countdowns'", "-", None),
    ("RSS per ended, retained job at jobs.max_retained (100,000: countdowns, submits and polls alike)", cell("retained", " B"), "-", "-", "≤ 1,024 B", med("retained") <= 1024),
    ("the same, ephemeral jobs (their attempt logs on the heap; result bodies counted here, about 70 B a job, which the target leaves out: see below the table)",
     cell("retainedeph", " B"), "-", "-", "≤ 1,024 B without bodies", None),
    ("RSS: idle, 1M active countdowns, 60 s after all cancelled and forgotten",
     f"{med('mem_IDLE_MB'):.0f}, {med('mem_PEAK_MB'):.0f}, " + cell("mem_AFTER_MB", " MB"), "-", "-",
     f"after ≤ 2× idle + 32 MB ({2 * med('mem_IDLE_MB') + 32:.0f} MB)", med("mem_AFTER_MB") <= 2 * med("mem_IDLE_MB") + 32),
    ("timer lateness while tables shrink after 1M forgotten (3,000 probes)",
     "p99 " + cell("mem_PROBE_P99_MS", " ms", "{:.3f}") + f", max {med('mem_PROBE_MAX_MS'):.3f} ms", "-", "-", "p99 ≤ 1 ms", med("mem_PROBE_P99_MS") <= 1),
    ("idle wake-ups per minute", cell("idle"), "-", "-", "0", med("idle") == 0),
    ("restart to READY=1, 1M persisted countdowns", cell("restart", " s", "{:.2f}"), "-", "-", "≤ 3 s", med("restart") <= 3),
    ("restart to READY=1, 1M persisted schedules (each a calendar rule and a POST request)", cell("restartsched", " s", "{:.2f}"), "-", "-", "≤ 3 s", med("restartsched") <= 3),
]
print(f"Medians of {sys.argv[2]} runs, (min–max) beside them.\n")
print("| row | reqd | comparison | ratio | target | met |")
print("|---|---|---|---|---|---|")
for *row, met in rows:
    print("| " + " | ".join(row) + " | " + ("-" if met is None else "yes" if met else "**no**") + " |")
