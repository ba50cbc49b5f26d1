#!/usr/bin/env python3
"""Differential test of reqd's calendar engine against the references.

Generated OnCalendar= expressions go through `reqd-client calendar --json` and through
`systemd-analyze calendar`; generated cron expressions through reqd-client and croniter. Each
expression is evaluated in one of several zones from a base time, often just before one of the
zone's 2027 clock changes.

- Away from clock changes the elapses must be identical to the reference's, and the normalized
  form identical to systemd's. Expressions systemd refuses, reqd must refuse too.
- Around a clock change reqd follows its own documented rule (docs/CALENDAR.md, "Clock changes"),
  not the reference's. There the test checks that rule: the wall-clock times the expression
  matches (the reference's own answers, asked in UTC) are turned into instants with Python's
  zoneinfo, the system's tzdata, by the rule, and reqd must give exactly those. A difference
  from the direct reference answer is allowed only within a day of a clock change.

At least 300 expressions of each kind are compared (generation goes on past the asked count
while refused ones leave fewer), and the forms the issue names are checked by name as well as
by chance (`REQUIRED`): each of those must be accepted and compared.

Usage: differential.py --bin BUILD_BIN [--calendar 320] [--cron 320] [--seed N]
"""
import argparse
import datetime as dt
import json
import random
import re
import subprocess
import sys
from zoneinfo import ZoneInfo

UTC = dt.timezone.utc
ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata",
         "Europe/London", "Pacific/Auckland", "America/Sao_Paulo"]
ITERATIONS = 50
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
# Expressions each run checks whatever the generator draws: (expression, zone, cron).
REQUIRED = [
    ("Mon *-05~07/1 10:00", "Europe/Berlin", False),
    ("*-02-29 12:00", "America/New_York", False),
    ("*-*~01 08:00", "UTC", False),
    ("Mon..Fri 09:00", "Asia/Kolkata", False),
    ("*-*-* 02:30", "Australia/Lord_Howe", False),
    ("*:0/30", "Australia/Lord_Howe", False),
    ("0/4:30", "Europe/Berlin", False),
    ("*-*-* 12:00:01.5", "UTC", False),
    ("0 9 * * 1-5", "Europe/Berlin", True),
    ("30 2 * * *", "America/New_York", True),
    ("@hourly", "Australia/Lord_Howe", True),
    ("@daily", "Asia/Kolkata", True),
]
MINIMUM = 300


def transitions(zone, year_from=2026, year_to=2036):
    """The zone's clock changes in the years, as UTC datetimes, by scanning hourly then bisecting."""
    if zone == "UTC":
        return []
    z = ZoneInfo(zone)
    found = []
    t = dt.datetime(year_from, 1, 1, tzinfo=UTC)
    end = dt.datetime(year_to, 1, 1, tzinfo=UTC)
    step = dt.timedelta(hours=1)
    prev = t.astimezone(z).utcoffset()
    while t < end:
        n = t + step
        off = n.astimezone(z).utcoffset()
        if off != prev:
            lo, hi = t, n
            while hi - lo > dt.timedelta(seconds=1):
                mid = lo + (hi - lo) / 2
                if mid.astimezone(z).utcoffset() == prev:
                    lo = mid
                else:
                    hi = mid
            found.append(hi.replace(microsecond=0))
            prev = off
        t = n
    return found


def resolve(civil, zone, repeats_hour):
    """The instants a wall-clock time in `zone` stands for under reqd's rule."""
    z = ZoneInfo(zone)
    out = []
    for fold in (0, 1):
        local = civil.replace(tzinfo=z, fold=fold)
        instant = local.astimezone(UTC)
        if instant.astimezone(z).replace(tzinfo=None) == civil:
            out.append(instant)
    out = sorted(set(out))
    if len(out) == 2:
        return out if repeats_hour else out[:1]
    if len(out) == 1:
        return out
    # A spring-forward gap: the instant the clocks jump.
    before = civil.replace(tzinfo=z, fold=0).utcoffset()
    after = civil.replace(tzinfo=z, fold=1).utcoffset()
    lo = (civil - max(before, after)).replace(tzinfo=UTC)
    hi = (civil - min(before, after)).replace(tzinfo=UTC)
    while hi - lo > dt.timedelta(seconds=1):
        mid = lo + (hi - lo) / 2
        if mid.astimezone(z).utcoffset() == min(before, after):
            lo = mid
        else:
            hi = mid
    return [] if repeats_hour else [hi.replace(microsecond=0)]


def parse_utc(text):
    return dt.datetime.strptime(text, "%a %Y-%m-%d %H:%M:%S UTC").replace(tzinfo=UTC)


def systemd_run(expr, base, iterations):
    return subprocess.run(["systemd-analyze", "calendar", f"--base-time=@{int(base.timestamp())}",
                           f"--iterations={iterations}", expr],
                          capture_output=True, text=True, env={"TZ": "UTC", "PATH": "/usr/bin:/bin"})


def systemd_normalized(expr):
    """systemd's normalized form, or None when it refuses the expression or it never elapses."""
    p = systemd_run(expr, dt.datetime(1970, 1, 2, tzinfo=UTC), 1)
    if "Failed to parse" in p.stderr:
        return None
    match = re.search(r"Normalized form: (.*)", p.stdout)
    if not match or "Next elapse: never" in p.stdout:
        return None
    return match.group(1).strip()


def systemd(expr, base):
    """systemd-analyze calendar's elapses (UTC datetimes); None when it cannot work them out.

    systemd gives up on some expressions near a clock change ("Failed to determine next elapse").
    """
    p = systemd_run(expr, base, ITERATIONS * 3)
    if p.returncode != 0:
        return None
    return [parse_utc(m) for m in re.findall(r"(?:Next elapse|Iter\. #\d+): (.*)", p.stdout) if m.strip() != "never"]


def reqd(binary, expr, base, zone, cron=False):
    args = [f"{binary}/reqd-client", "calendar", "--json", "--iterations", str(ITERATIONS),
            "--from", f"@{int(base.timestamp())}", "--tz", zone, expr]
    if cron:
        args.insert(2, "--cron")
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode == 11:
        return None
    out = json.loads(p.stdout)
    return out["normalized"], [dt.datetime.fromisoformat(t.replace("Z", "+00:00")) for t in out["next"]]


def chain(rng, low, high, width, allow_step=True):
    kind = rng.random()
    fmt = lambda v: str(v).zfill(width) if rng.random() < 0.5 else str(v)
    if kind < 0.3:
        return "*"
    if kind < 0.55:
        return fmt(rng.randint(low, high))
    if kind < 0.7:
        values = sorted(rng.sample(range(low, high + 1), rng.randint(2, 3)))
        return ",".join(fmt(v) for v in values)
    if kind < 0.85:
        a = rng.randint(low, high - 1)
        return f"{fmt(a)}..{fmt(rng.randint(a + 1, high))}"
    if not allow_step:
        return fmt(rng.randint(low, high))
    a = rng.randint(low, low + (high - low) // 3)
    return f"{fmt(a)}/{rng.randint(1, max(1, (high - a) // 2))}"


def calendar_expression(rng):
    shorthand = ["minutely", "hourly", "daily", "weekly", "monthly", "yearly", "quarterly",
                 "semiannually", "*-02-29", "Mon *-05~07/1", "*-*~01", "Sat,Sun *-*-* 10:00",
                 "*-*-* 02:30", "*-*-* *:00", "0/4:30", "*-*-* 01,02:15:00", "Fri *-*-13 02:00"]
    if rng.random() < 0.15:
        return rng.choice(shorthand)
    parts = []
    if rng.random() < 0.3:
        a = rng.randint(0, 5)
        b = rng.randint(a + 1, 6)
        parts.append(rng.choice([f"{DAYS[a]}..{DAYS[b]}", f"{DAYS[a]},{DAYS[b]}", DAYS[a],
                                 f"{DAYS[a]}..{DAYS[b]},{DAYS[(b + 2) % 7]}" if b < 5 else DAYS[b]]))
    if rng.random() < 0.75:
        year = "*" if rng.random() < 0.85 else rng.choice(["2027..2031", "2028,2030", "2029"])
        month = chain(rng, 1, 12, 2)
        if rng.random() < 0.15:
            day = f"{rng.randint(1, 7)}" + (f"/{rng.randint(1, 2)}" if rng.random() < 0.5 else "")
            parts.append(f"{year}-{month}~{day.zfill(2)}")
        else:
            parts.append(f"{year}-{month}-{chain(rng, 1, 28, 2)}")
    hour = chain(rng, 0, 23, 2)
    minute = chain(rng, 0, 59, 2)
    if rng.random() < 0.4:
        second = rng.choice(["00", "*", "0/10", "30", "0/2.5", "10.25", "05..10", "0/15,7"])
        parts.append(f"{hour}:{minute}:{second}")
    else:
        parts.append(f"{hour}:{minute}")
    return " ".join(parts)


def cron_expression(rng):
    if rng.random() < 0.1:
        return rng.choice(["@hourly", "@daily", "@weekly", "@monthly", "@yearly", "30 2 * * *", "0 * * * *",
                           "15 1,2 * * *", "0 */2 * * *", "45 2 * * sun"])
    def field(low, high, names=None):
        kind = rng.random()
        value = lambda: (names[rng.randint(low, high) - low] if names and rng.random() < 0.3 else str(rng.randint(low, high)))
        if kind < 0.35:
            return "*"
        if kind < 0.6:
            return value()
        if kind < 0.72:
            return ",".join(sorted({str(rng.randint(low, high)) for _ in range(3)}, key=int))
        if kind < 0.86:
            a = rng.randint(low, high - 1)
            return f"{a}-{rng.randint(a + 1, high)}"
        return f"*/{rng.randint(2, max(2, (high - low) // 2))}"
    months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    wdays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
    return " ".join([field(0, 59), field(0, 23), field(1, 28), field(1, 12, months), field(0, 6, wdays)])


def hour_repeats(normalized, cron):
    if cron:
        from croniter import croniter
        hours = croniter(normalized).expanded[1]
        return hours == ["*"] or len(hours) > 1
    time = normalized.split(" ")[-1] if ":" in normalized.split(" ")[-1] else normalized.split(" ")[-2]
    hour = time.split(":")[0]
    return not re.fullmatch(r"\d+", hour)


def expected_by_rule(civil_times, zone, base, repeats_hour, max_offset):
    """Instants after `base` by the rule, up to where the civil list still covers."""
    out = set()
    for c in civil_times:
        for i in resolve(c, zone, repeats_hour):
            if i > base:
                out.add(i)
    if not civil_times:
        return [], None
    covered_until = (civil_times[-1] - max_offset).replace(tzinfo=UTC)
    return sorted(i for i in out if i <= covered_until), covered_until


def near_change(instant, changes):
    return any(abs((instant - c).total_seconds()) <= 26 * 3600 for c in changes)


def base_time(rng, zone, changes):
    if changes and rng.random() < 0.6:
        change = rng.choice([c for c in changes if c.year == 2027] or changes)
        return change - dt.timedelta(seconds=rng.randint(0, 3 * 86400))
    return dt.datetime(2026, 1, 1, tzinfo=UTC) + dt.timedelta(seconds=rng.randint(0, 9 * 365 * 86400))


def civil_reference(expr, zone, base, cron, spread):
    """The wall-clock times the expression matches from just before base, asked of the reference in UTC."""
    z = ZoneInfo(zone)
    local = base.astimezone(z).replace(tzinfo=None) - spread - dt.timedelta(seconds=1)
    if cron:
        from croniter import croniter
        it = croniter(expr, local)
        return [it.get_next(dt.datetime) for _ in range(ITERATIONS * 3)]
    times = systemd(expr + " UTC", local.replace(tzinfo=UTC))
    return [t.replace(tzinfo=None) for t in times or []]


def crosses_change(start, end, changes):
    """Whether a clock change lies between two instants, or within a day of either."""
    margin = dt.timedelta(hours=26)
    return any(start - margin <= c <= end + margin for c in changes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--calendar", type=int, default=320)
    ap.add_argument("--cron", type=int, default=320)
    ap.add_argument("--seed", type=int, default=20270328)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    changes_by_zone = {zone: transitions(zone) for zone in ZONES}
    failures = []
    stats = {"calendar": 0, "cron": 0, "refused": 0, "dst_differences": 0, "elapses": 0, "reference_gave_up": 0,
             "compared calendar": 0, "compared cron": 0}

    def check(expr, zone, cron):
        """Checks one expression; True once it reached the comparison with the reference."""
        changes = changes_by_zone[zone]
        base = base_time(rng, zone, changes)
        z = ZoneInfo(zone)
        offsets = [base.astimezone(z).utcoffset()] + [c.astimezone(z).utcoffset() for c in changes]
        offsets += [(c - dt.timedelta(seconds=1)).astimezone(z).utcoffset() for c in changes]
        spread = max(offsets) - min(offsets)
        label = f"{'cron ' if cron else ''}{expr!r} in {zone} from {base.isoformat()}"
        ours = reqd(args.bin, expr, base, zone, cron)
        if cron:
            from croniter import croniter
            try:
                croniter(expr)
                normalized = None
            except Exception:
                normalized = False
        else:
            normalized = systemd_normalized(f"{expr} {zone}")
        if ours is None or normalized is False or (not cron and normalized is None):
            if (ours is None) != (normalized is False or normalized is None):
                failures.append(f"{label}: reqd {'refused' if ours is None else 'accepted'} it, the reference did not")
            stats["refused"] += 1
            return False
        stats["compared cron" if cron else "compared calendar"] += 1
        if not cron and f"{ours[0]} {zone}" != normalized:
            failures.append(f"{label}: normalized {ours[0]!r}, systemd {normalized!r}")
        mine = [t.replace(microsecond=0) for t in ours[1]]
        stats["elapses"] += len(mine)
        # The rule, everywhere: the reference's wall-clock matches, resolved in the zone.
        repeats = hour_repeats(ours[0] if not cron else expr, cron)
        civil = civil_reference(expr, zone, base, cron, spread)
        expected, covered = expected_by_rule(civil, zone, base, repeats, max(offsets))
        if covered is not None:
            compare = [t for t in mine if t <= covered]
            want = expected[:len(compare)] if len(mine) == ITERATIONS else expected
            if compare != want[:len(compare)] or (len(mine) < ITERATIONS and compare != want):
                first = next((i for i, (a, b) in enumerate(zip(compare, want)) if a != b), min(len(compare), len(want)))
                failures.append(f"{label}: by the rule expected {[t.isoformat() for t in want[first:first + 3]]}, "
                                f"reqd gave {[t.isoformat() for t in compare[first:first + 3]]} (elapse {first})")
                return True
        # The reference asked directly in the zone: the same answers except across a clock change.
        differs = False
        if cron:
            previous = base
            for elapse in mine:
                theirs = croniter(expr, previous.astimezone(z)).get_next(dt.datetime).astimezone(UTC)
                if theirs != elapse:
                    if crosses_change(previous, max(theirs, elapse), changes):
                        differs = True
                    else:
                        failures.append(f"{label}: after {previous.isoformat()} croniter says {theirs.isoformat()}, "
                                        f"reqd {elapse.isoformat()}, with no clock change near")
                        return True
                previous = elapse
        else:
            direct = systemd(f"{expr} {zone}", base)
            if direct is None:
                stats["reference_gave_up"] += 1
                differs = True
            else:
                horizon = min(mine[-1] if mine else base, direct[-1] if direct else base)
                difference = {t for t in mine if t <= horizon} ^ {t.replace(microsecond=0) for t in direct if t <= horizon}
                far = [t for t in difference if not crosses_change(t, t, changes)]
                if far:
                    failures.append(f"{label}: differs from systemd away from any clock change at "
                                    f"{sorted(t.isoformat() for t in far)[:3]}")
                    return True
                differs = bool(difference)
        if differs:
            stats["dst_differences"] += 1
        return True

    for kind, count, make in (("calendar", args.calendar, calendar_expression), ("cron", args.cron, cron_expression)):
        cron = kind == "cron"
        # The asked count, then more while refused ones leave fewer than MINIMUM compared.
        while stats[kind] < count or (stats[f"compared {kind}"] < MINIMUM and stats[kind] < 3 * max(count, MINIMUM)):
            check(make(rng), rng.choice(ZONES), cron)
            stats[kind] += 1
        if stats[f"compared {kind}"] < MINIMUM:
            failures.append(f"only {stats[f'compared {kind}']} {kind} expressions were compared, not {MINIMUM}")
    for expr, zone, cron in REQUIRED:
        if not check(expr, zone, cron):
            failures.append(f"{'cron ' if cron else ''}{expr!r} in {zone}, a required form, was not compared")
    print(f"calendar {stats['calendar']}, cron {stats['cron']} expressions and {len(REQUIRED)} required ones; "
          f"compared {stats['compared calendar']} and {stats['compared cron']}; {stats['refused']} refused by both; "
          f"{stats['elapses']} elapses compared; {stats['dst_differences']} differ from the reference at a clock change, "
          f"each checked by the rule ({stats['reference_gave_up']} where systemd gave up near one)")
    for f in failures[:40]:
        print("FAIL:", f)
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    if stats["dst_differences"] < 10:
        print("FAIL: too few expressions met a clock change to test the rule")
        sys.exit(1)


if __name__ == "__main__":
    main()
