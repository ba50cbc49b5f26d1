#!/usr/bin/env python3
"""Load for the journal part of tests/systemd/box-test.sh, run inside the box.

`journal-load.py SOCKET healthy N`: registers N ephemeral 1 s countdowns, pipelined over 4
connections, and prints the rate. `journal-load.py SOCKET failing N URL`: submits N requests of
one attempt each to URL (a closed port), waits until each has ended, and prints their ids, one a
line.
"""

import json
import socket
import sys
import threading
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def pipeline(path, bodies):
    """Sends every body on one connection while reading the replies; returns the replies by id."""
    s = connect(path)
    replies = {}

    def reader():
        buffer = b""
        while len(replies) < len(bodies):
            chunk = s.recv(1 << 16)
            if not chunk:
                return
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                message = json.loads(line)
                if "id" in message and message["id"] is not None:
                    replies[message["id"]] = message

    thread = threading.Thread(target=reader)
    thread.start()
    for start in range(0, len(bodies), 512):
        s.sendall(b"".join(json.dumps(b).encode() + b"\n" for b in bodies[start:start + 512]))
    thread.join(120)
    s.close()
    return replies


def main():
    path, mode, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "healthy":
        began = time.monotonic()
        threads, results = [], []
        for c in range(4):
            bodies = [{"id": i, "op": "register-countdown", "key": f"load-{c}-{i}", "duration_ms": 1000, "ephemeral": True}
                      for i in range(c, count, 4)]
            t = threading.Thread(target=lambda b=bodies: results.append(pipeline(path, b)))
            t.start()
            threads.append(t)
        for t in threads:
            t.join()
        ok = sum(1 for r in results for m in r.values() if m.get("ok"))
        print(f"{ok} of {count} registered in {time.monotonic() - began:.1f} s")
        sys.exit(0 if ok == count else 1)
    url = sys.argv[4]
    bodies = [{"id": i, "op": "submit", "method": "POST", "url": url, "max_attempts": 1, "ephemeral": True}
              for i in range(count)]
    replies = pipeline(path, bodies)
    ids = [m["result"]["job"]["id"] for m in replies.values() if m.get("ok")]
    waiter = connect(path)
    reader = waiter.makefile("rb")
    for n, job in enumerate(ids):
        waiter.sendall(json.dumps({"id": n, "op": "wait", "job": job}).encode() + b"\n")
        while json.loads(reader.readline()).get("id") != n:
            pass
    for job in ids:
        print(job)
    sys.exit(0 if len(ids) == count else 1)


if __name__ == "__main__":
    main()
