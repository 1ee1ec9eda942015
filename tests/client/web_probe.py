#!/usr/bin/env python3
"""HTTP probes of mpiwatch --web for tests/client/check-web-live.sh.

  web_probe.py url ERRFILE SECONDS   the page's URL from the client's stderr, once it is there
  web_probe.py state URL             "elapsed calls attached finished" of /api/state
  web_probe.py schema URL FILE       /api/state, kept in FILE, passes the report schema check
                                     (tests/lib/report_schema.py --live): "schema ok: ..."
  web_probe.py hammer URL N          once some rank is attached, N requests of /api/state in a
                                     loop, on one connection:
                                     "n=N median_ms=.. p95_ms=.. max_ms=.. during_job=K"
                                     (K answered while some rank was still attached)
  web_probe.py stream URL N          N events of /api/stream (Server-Sent Events), each a whole
                                     state that passes the report schema check:
                                     "events=N calls=A,B,.. seconds=S"; for N >= 2,
                                     fails unless the calls change from one event to another
  web_probe.py streams URL LIMIT     LIMIT streams open at once get 200, one more 503, while
                                     / and /api/state still answer; once they are closed a new
                                     one gets 200 again; 50 streams dropped at once do no harm
  web_probe.py hold URL N FILE       holds N streams (all 200, retried for 30 s), says so in
                                     FILE, then keeps them until killed
  web_probe.py bad URL               bad requests get an HTTP error and the server lives on
Exit status 0, or 1 with the reason on stderr.
"""
from __future__ import annotations

import http.client
import json
import re
import socket
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from report_schema import check_text  # noqa: E402  (tests/lib/report_schema.py)


def get(conn: http.client.HTTPConnection, path: str, method: str = "GET") -> tuple[int, bytes]:
    """One request; asked again on a new connection, for up to 30 s, when the server
    closed the connection unanswered. It does so to a kept-alive connection idle past its
    10 s timeout (a loaded machine can hold this process that long between two requests),
    and to a new one while it holds its 64 connections: streams closed by the client keep
    theirs until the server's next write to them, later still on a loaded machine. A
    server that no longer answers still fails after the 30 s."""
    end = time.time() + 30
    while True:
        try:
            conn.request(method, path)
            r = conn.getresponse()
            return r.status, r.read()
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected):
            conn.close()
            if time.time() > end:
                raise
            time.sleep(0.2)


def connect(url: str) -> http.client.HTTPConnection:
    u = urlsplit(url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=30)


def summary(body: bytes) -> tuple[float, int, int, int]:
    d = json.loads(body)
    calls = sum(int(f.get("calls", 0)) for f in d.get("functions", {}).values())
    live = d["live"]
    return float(live["elapsed"]), calls, int(live["attached"]), int(live["finished"])


def cmd_url(path: str, seconds: float) -> int:
    end = time.time() + seconds
    while time.time() < end:
        try:
            m = re.search(r"http://([0-9.]+|\[[0-9a-fA-F:.]+\]):[0-9]+/", open(path, encoding="utf-8", errors="replace").read())
        except OSError:
            m = None
        if m:
            print(m.group(0))
            return 0
        time.sleep(0.1)
    print(f"web_probe: no URL in {path} after {seconds} s", file=sys.stderr)
    return 1


def cmd_state(url: str) -> int:
    status, body = get(connect(url), "/api/state")
    if status != 200:
        print(f"web_probe: /api/state answered {status}", file=sys.stderr)
        return 1
    print("%.3f %d %d %d" % summary(body))
    return 0


def cmd_schema(url: str, keep: str) -> int:
    status, body = get(connect(url), "/api/state")
    Path(keep).write_bytes(body)
    if status != 200:
        print(f"web_probe: /api/state answered {status}", file=sys.stderr)
        return 1
    problems = check_text(body.decode("utf-8"), live=True)
    if problems:
        print(f"web_probe: /api/state ({keep}) is not in the report schema:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    d = json.loads(body)
    print(f"schema ok: {len(d['functions'])} functions, {len(d['rank_times'])} ranks' times, "
          f"{len(d['pairs'])} pairs, {len(d['live']['inflight'])} calls in progress"
          + (", who waits for whom" if isinstance(d["live"].get("wait_for"), dict) else ""))
    return 0


def cmd_hammer(url: str, n: int) -> int:
    conn = connect(url)
    end = time.time() + 300          # first, until some rank is attached
    while time.time() < end:
        status, body = get(conn, "/api/state")
        if status == 200 and summary(body)[2] > 0:
            break
        time.sleep(0.02)
    times = []
    during = 0
    for _ in range(n):
        t0 = time.perf_counter()
        status, body = get(conn, "/api/state")
        times.append((time.perf_counter() - t0) * 1000)
        if status != 200:
            print(f"web_probe: /api/state answered {status}", file=sys.stderr)
            return 1
        _, _, attached, _ = summary(body)   # every answer is a whole JSON state
        during += attached > 0
    times.sort()
    print("n=%d median_ms=%.2f p95_ms=%.2f max_ms=%.2f during_job=%d" % (
        n, times[n // 2], times[min(n - 1, int(n * 0.95))], times[-1], during))
    return 0


def open_stream(url: str, timeout: float = 30) -> http.client.HTTPResponse:
    """/api/stream on a new connection; tried again for up to 30 s while the server
    closes new connections unanswered (at its connection limit: see get)."""
    end = time.time() + 30
    while True:
        conn = connect(url)
        conn.timeout = timeout
        try:
            conn.request("GET", "/api/stream", headers={"Accept": "text/event-stream"})
            return conn.getresponse()
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected):
            conn.close()
            if time.time() > end:
                raise
            time.sleep(0.2)


def next_event(r: http.client.HTTPResponse) -> dict[str, str]:
    """The fields of the next event (comments skipped); {} at the end of the stream."""
    fields: dict[str, str] = {}
    while True:
        line = r.readline()
        if not line:
            return {}
        line = line.decode("utf-8").rstrip("\r\n")
        if line == "":
            if "data" in fields:
                return fields
            fields = {}
            continue
        if line.startswith(":"):
            continue
        key, _, value = line.partition(":")
        fields[key] = fields.get(key, "") + value[1:] if value.startswith(" ") else value


def cmd_stream(url: str, n: int) -> int:
    t0 = time.time()
    r = open_stream(url)
    kind = r.getheader("Content-Type", "")
    if r.status != 200 or not kind.startswith("text/event-stream"):
        print(f"web_probe: /api/stream answered {r.status} {kind}", file=sys.stderr)
        return 1
    calls, ids = [], []
    for _ in range(n):
        ev = next_event(r)
        if not ev:
            print(f"web_probe: the stream ended after {len(calls)} events", file=sys.stderr)
            return 1
        problems = check_text(ev["data"], live=True)   # each event is a whole JSON state
        if problems:
            print(f"web_probe: event {len(calls) + 1} of the stream is not in the report schema: "
                  + "; ".join(problems[:5]), file=sys.stderr)
            return 1
        calls.append(summary(ev["data"].encode())[1])
        ids.append(int(ev.get("id", "0")))
    r.close()
    if ids != sorted(set(ids)):
        print(f"web_probe: event ids not increasing: {ids}", file=sys.stderr)
        return 1
    if n >= 2 and len(set(calls)) < 2:
        print(f"web_probe: the calls did not change over {n} events: {calls}", file=sys.stderr)
        return 1
    print("events=%d calls=%s seconds=%.1f" % (n, ",".join(map(str, calls)), time.time() - t0))
    return 0


def wait_for_slot(url: str, seconds: float) -> int:
    """Until a stream gets 200 and an event (streams closed before are noticed at their
    next writes, within about 2 s): its status."""
    end = time.time() + seconds
    while True:
        r = open_stream(url)
        ok = r.status == 200 and next_event(r)
        r.close()
        if ok or time.time() > end:
            return r.status if not ok else 200
        time.sleep(0.5)


def open_all(url: str, limit: int, seconds: float) -> list[http.client.HTTPResponse]:
    """limit streams at once, all answered 200; tried again (the streams of earlier
    checks may hold slots for about 2 s more) until seconds have passed: [] then."""
    end = time.time() + seconds
    while True:
        held = []
        for _ in range(limit):
            r = open_stream(url)
            held.append(r)
            if r.status != 200:
                break
        if all(r.status == 200 for r in held):
            return held
        for r in held:
            r.close()
        if time.time() > end:
            print(f"web_probe: stream {len(held)} of {limit} answered {held[-1].status} "
                  f"for {seconds} s", file=sys.stderr)
            return []
        time.sleep(1)


def cmd_hold(url: str, n: int, ready: str) -> int:
    held = open_all(url, n, 30)
    if not held:
        return 1
    with open(ready, "w", encoding="utf-8") as f:
        f.write("held %d streams\n" % n)
    time.sleep(120)             # until killed
    return 0


def cmd_streams(url: str, limit: int) -> int:
    held = open_all(url, limit, 30)
    if not held:
        return 1
    extra = open_stream(url)
    if extra.status != 503 or not extra.getheader("Retry-After"):
        print(f"web_probe: stream {limit + 1} answered {extra.status}, expected 503 with Retry-After",
              file=sys.stderr)
        return 1
    extra.read()
    for path in ("/", "/api/state"):
        status, _ = get(connect(url), path)
        if status != 200:
            print(f"web_probe: with {limit} streams open {path} answered {status}", file=sys.stderr)
            return 1
    for r in held:
        r.close()
    t0 = time.time()
    # Slots come back within about 2 s (a figure); 30 s only guards a hang.
    status = wait_for_slot(url, 30)
    if status != 200:
        print(f"web_probe: 30 s after closing the streams a new one still answers {status}",
              file=sys.stderr)
        return 1
    freed = time.time() - t0
    u = urlsplit(url)
    for _ in range(50):         # opened and dropped before reading anything
        s = socket.create_connection((u.hostname, u.port), timeout=10)
        s.sendall(b"GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n")
        s.close()
    status, _ = get(connect(url), "/api/state")
    if status != 200:
        print(f"web_probe: after 50 dropped streams /api/state answered {status}", file=sys.stderr)
        return 1
    t0 = time.time()
    if wait_for_slot(url, 30) != 200:
        print("web_probe: 30 s after 50 dropped streams no stream slot is free", file=sys.stderr)
        return 1
    print(f"{limit} streams open: 200 each, one more 503 (Retry-After), / and /api/state still 200; "
          f"closed, their slots came back within {freed:.1f} s; 50 streams dropped unread: "
          f"the server still answers, slots back within {time.time() - t0:.1f} s")
    return 0


def cmd_bad(url: str) -> int:
    conn = connect(url)
    want = [("GET", "/nothing-here", 404), ("POST", "/api/state", 405), ("DELETE", "/", 405),
            ("GET", "/../../etc/passwd", 404), ("GET", "/api/state?x=" + "A" * 2000, 200),
            ("POST", "/api/stream", 405), ("PUT", "/api/stream", 405), ("GET", "/api/stream/x", 404),
            ("GET", "/api/streams", 404), ("HEAD", "/api/stream", 200)]
    for method, path, code in want:
        status, _ = get(conn, path, method)
        end = time.time() + 30
        while path == "/api/stream" and code == 200 and status == 503 and time.time() < end:
            # Every slot still held by the streams of the check before (closed
            # ones are noticed at their next writes): a busy answer, not a
            # refusal of the method; asked again on a new connection.
            time.sleep(0.5)
            conn = connect(url)
            status, _ = get(conn, path, method)
        if status != code:
            print(f"web_probe: {method} {path[:40]} answered {status}, expected {code}", file=sys.stderr)
            return 1
    u = urlsplit(url)
    for raw in (b"\x00\xff garbage\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"GET " + b"/" * 100000 + b" HTTP/1.1\r\n\r\n"):
        with socket.create_connection((u.hostname, u.port), timeout=10) as s:
            try:
                s.sendall(raw)
                s.recv(4096)       # an error status, or the server closing: never a hang
            except OSError:
                pass
    status, body = get(connect(url), "/api/state")
    if status != 200:
        print(f"web_probe: after the bad requests /api/state answered {status}", file=sys.stderr)
        return 1
    print("bad requests: 404, 405, 405, 404; /api/stream: POST and PUT 405, longer paths 404, HEAD 200; garbage and an overlong request line answered or closed; "
          "the server still answers")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "url":
        return cmd_url(argv[1], float(argv[2]))
    if len(argv) == 2 and argv[0] == "state":
        return cmd_state(argv[1])
    if len(argv) == 3 and argv[0] == "schema":
        return cmd_schema(argv[1], argv[2])
    if len(argv) == 3 and argv[0] == "hammer":
        return cmd_hammer(argv[1], int(argv[2]))
    if len(argv) == 3 and argv[0] == "stream":
        return cmd_stream(argv[1], int(argv[2]))
    if len(argv) == 4 and argv[0] == "hold":
        return cmd_hold(argv[1], int(argv[2]), argv[3])
    if len(argv) == 3 and argv[0] == "streams":
        return cmd_streams(argv[1], int(argv[2]))
    if len(argv) == 2 and argv[0] == "bad":
        return cmd_bad(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, KeyError, http.client.HTTPException) as e:
        print(f"web_probe: {e}", file=sys.stderr)
        sys.exit(1)
