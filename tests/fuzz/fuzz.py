#!/usr/bin/env python3
"""Structure-aware fuzz test of the socket protocol (issue 17).

Starts reqd on a fresh state directory (as root, in a network namespace of its own with only
loopback up, so that no request it is talked into can leave the machine; every URL in the
templates is 127.0.0.1 port 9 anyway, and mutations never write a URL). It sends LINES lines over
CONNECTIONS connections at once, pipelined: random bytes, random JSON, and valid requests mutated
at the JSON level (fields dropped, retyped, added; ops swapped; ids of every type; lines cut
short), plus a few lines over the 1 MiB limit. It checks:

- every line that is not empty gets exactly one reply: `"ok":true`, or an error whose code is
  one of the documented codes (Sources/ReqdProtocol/Messages/ErrorCode.swift);
- the daemon is still up and answers `status` on a new connection afterwards;
- its RSS stays under --max-rss-mb.

It prints the totals, the rate, the error codes seen and the RSS. `wait` is never sent: its reply
comes when a job ends, which a fuzzed job may never do.

Usage: tests/fuzz/fuzz.py --bin DIR [--lines 100000] [--connections 4] [--seed N] [--max-rss-mb 400]
"""

import argparse
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPS = ["hello", "status", "list", "register-countdown", "register-poll", "register-group", "submit",
       "cancel", "watch", "unwatch", "retry", "delete"]
URL = "http://127.0.0.1:9/fuzz"
ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_-. "


def documented_codes():
    text = open(os.path.join(ROOT, "Sources/ReqdProtocol/Messages/ErrorCode.swift")).read()
    return set(re.findall(r'case\s+`?\w+`?\s*=\s*"([a-z_]+)"', text))


class Generator:
    def __init__(self, rng):
        self.rng = rng

    def word(self, n=None):
        return "".join(self.rng.choice(ALPHABET) for _ in range(n or self.rng.randint(0, 12)))

    def value(self, depth=0):
        r = self.rng.random()
        if r < 0.15:
            return self.rng.randint(-2**63, 2**63 - 1) if self.rng.random() < 0.3 else self.rng.randint(-5, 100000)
        if r < 0.25:
            return self.rng.uniform(-1e6, 1e6)
        if r < 0.35:
            return self.rng.choice([True, False, None])
        if r < 0.75 or depth > 2:
            return self.word()
        if r < 0.88:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 4))]
        return {self.word(): self.value(depth + 1) for _ in range(self.rng.randint(0, 4))}

    def template(self, index):
        rng = self.rng
        key = f"k{rng.randint(0, 500)}"
        op = rng.choice(OPS)
        body = {"id": index, "op": op}
        if op == "hello":
            body["protocol"] = 1
        elif op == "list":
            body.update({"limit": rng.randint(1, 20)})
            if rng.random() < 0.5:
                body["state"] = rng.choice(["active", "expired", "cancelled", "dead"])
        elif op == "register-countdown":
            body.update({"key": key, "duration_ms": rng.randint(50, 5000), "ephemeral": rng.random() < 0.7})
            if rng.random() < 0.3:
                body["tick_ms"] = rng.choice([100, 500, 1000])
            if rng.random() < 0.1:
                body["on_expire"] = {"method": "POST", "url": URL, "max_attempts": 1}
        elif op == "register-poll":
            body.update({"key": key, "url": URL, "every_ms": 1000, "until": '/state == "done"',
                         "ephemeral": True, "max_failures": 1})
        elif op == "register-group":
            body.update({"key": key, "ephemeral": True,
                         "requests": [{"method": "GET", "url": URL, "max_attempts": 1}]})
        elif op == "submit":
            body.update({"method": "POST", "url": URL, "body": "{}", "max_attempts": 1, "ephemeral": True})
        elif op == "cancel":
            body.update(rng.choice([{"key": key}, {"job": "cd_" + self.word(10)}, {"scope": self.word(4)}]))
        elif op == "watch":
            body.update(rng.choice([{"job": "cd_" + self.word(10)}, {"key": key}]))
        elif op == "unwatch":
            body["watch"] = rng.randint(0, 1000)
        elif op in ("retry", "delete"):
            body["job"] = "rq_" + self.word(10)
        return body

    def mutate(self, body):
        rng = self.rng
        for _ in range(rng.randint(1, 2)):
            choice = rng.random()
            keys = [k for k in body if k != "url"]
            if choice < 0.25 and keys:
                del body[rng.choice(keys)]
            elif choice < 0.55 and keys:
                body[rng.choice(keys)] = self.value()
            elif choice < 0.7:
                body[self.word(rng.randint(1, 8))] = self.value()
            elif choice < 0.8:
                body["op"] = rng.choice(OPS + [self.word()])
            else:
                body["id"] = self.value()
        return body

    def line(self, index):
        rng = self.rng
        r = rng.random()
        if r < 0.3:
            data = bytes(rng.choice([b for b in range(256) if b != 10]) for _ in range(rng.randint(1, 120)))
        elif r < 0.5:
            data = json.dumps(self.value() if rng.random() < 0.3 else
                              {self.word(): self.value() for _ in range(rng.randint(0, 6))}).encode()
        else:
            body = self.template(index)
            if rng.random() < 0.5:
                body = self.mutate(body)
            data = json.dumps(body).encode()
            if rng.random() < 0.1:
                data = data[:rng.randint(1, len(data))]
        if b'"wait"' in data:
            data = b"{}"
        # A line that is empty once a trailing \r is dropped gets no reply by design.
        if data.rstrip(b"\r") == b"":
            data = b"x"
        return data + b"\n"


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


def connect(path, timeout=30):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s


WINDOW = 8192


def run_connection(path, lines, codes, result):
    expected = len(lines)
    s = connect(path)
    replies, bad, seen = 0, [], {}

    def writer():
        # At most WINDOW lines unanswered, as a pipelining client should: a reader that falls
        # behind would otherwise leave more unread replies than socket.max_pending_bytes, and the
        # daemon rightly drops such a client.
        try:
            for start in range(0, len(lines), 256):
                while start - replies > WINDOW and not bad:
                    time.sleep(0.001)
                s.sendall(b"".join(lines[start:start + 256]))
        except OSError as error:
            bad.append(f"write failed: {error}")

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    buffer = b""
    deadline = time.time() + 300
    try:
        while replies < expected and time.time() < deadline:
            chunk = s.recv(1 << 16)
            if not chunk:
                bad.append("the daemon closed the connection")
                break
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            for raw in complete:
                if raw.startswith(b'{"event":'):
                    continue
                message = json.loads(raw)
                if "event" in message:
                    continue
                replies += 1
                if message.get("ok") is True:
                    seen["ok"] = seen.get("ok", 0) + 1
                    continue
                code = (message.get("error") or {}).get("code")
                seen[code] = seen.get(code, 0) + 1
                if message.get("ok") is not False or code not in codes:
                    bad.append(f"undocumented reply: {raw[:200]!r}")
        # Exactly one: nothing more may come for these lines.
        s.settimeout(1.0)
        try:
            while True:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                buffer += chunk
                *complete, buffer = buffer.split(b"\n")
                replies += sum(1 for raw in complete if "event" not in json.loads(raw))
        except socket.timeout:
            pass
    except (OSError, ValueError) as error:
        bad.append(f"read failed: {error}")
    thread.join(timeout=5)
    s.close()
    result.append((expected, replies, bad, seen))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--max-rss-mb", type=float, default=400)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    generator = Generator(rng)
    per = args.lines // args.connections
    batches = [[generator.line(c * per + i) for i in range(per)] for c in range(args.connections)]
    for batch in batches[:3]:
        batch.insert(rng.randrange(len(batch)), b"a" * (1024 * 1024 + 100) + b"\n")
    total = sum(len(b) for b in batches)
    codes = documented_codes()

    work = tempfile.mkdtemp(prefix="reqd-fuzz-")
    os.chmod(work, 0o755)
    sock = os.path.join(work, "reqd.sock")
    command = [os.path.join(args.bin, "reqd"), "--socket", sock, "--state-dir", os.path.join(work, "state"),
               "--log-level", "warning", "--log-target", "stderr", "--set", "jobs.max_retained=20000",
               # The readers here are Python threads that share one interpreter lock with the
               # writers; the followed jobs' events can outrun them by more than the default 8 MiB,
               # and the daemon rightly drops a client that far behind.
               "--set", "socket.max_pending_bytes=67108864"]
    if os.geteuid() == 0 and shutil.which("unshare") and shutil.which("ip"):
        command = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"] + command
        where = "in a network namespace of its own"
    else:
        where = "on this machine's network (not root: no namespace); every URL is 127.0.0.1:9"
    log = open(os.path.join(work, "reqd.log"), "w")
    daemon = subprocess.Popen(command, stderr=log)
    try:
        for _ in range(300):
            try:
                connect(sock, 1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            sys.exit("fuzz: reqd did not start")
        # unshare without --fork and the shell both exec: the process started is reqd itself.
        pid = daemon.pid
        print(f"fuzz: seed {args.seed}, {total} lines over {args.connections} connections, reqd {where}")
        started = time.time()
        results, threads, peak = [], [], 0.0
        for batch in batches:
            thread = threading.Thread(target=run_connection, args=(sock, batch, codes, results))
            thread.start()
            threads.append(thread)
        while any(t.is_alive() for t in threads):
            peak = max(peak, rss_mb(pid))
            time.sleep(0.2)
        elapsed = time.time() - started
        failures = []
        seen = {}
        for expected, replies, bad, codes_seen in results:
            if replies != expected:
                failures.append(f"a connection sent {expected} lines and got {replies} replies")
            failures += bad[:5]
            for code, count in codes_seen.items():
                seen[code] = seen.get(code, 0) + count
        status = connect(sock, 10)
        status.sendall(b'{"id":1,"op":"status"}\n')
        answer = json.loads(status.makefile("rb").readline() or b"{}")
        if answer.get("ok") is not True:
            failures.append(f"status after the fuzz: {answer}")
        if daemon.poll() is not None:
            failures.append(f"reqd exited with {daemon.returncode}")
        peak = max(peak, rss_mb(pid))
        print(f"fuzz: {total} lines in {elapsed:.1f} s ({total / elapsed:,.0f} lines/s), peak RSS {peak:.0f} MB")
        print("fuzz: replies: " + ", ".join(f"{k} {v}" for k, v in sorted(seen.items(), key=lambda kv: -kv[1])))
        if peak > args.max_rss_mb:
            failures.append(f"peak RSS {peak:.0f} MB is over {args.max_rss_mb:.0f} MB")
        if failures:
            print("fuzz: FAILED (seed %d)" % args.seed)
            for failure in failures:
                print("  " + failure)
            log.flush()
            print("fuzz: the end of reqd's log:")
            print(open(os.path.join(work, "reqd.log"), errors="replace").read()[-3000:])
            sys.exit(1)
        print("fuzz: OK: every line got exactly one reply with ok or a documented code; reqd is up")
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()
        log.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
