#!/usr/bin/env python3
"""A minimal client of the live monitor protocol (docs/protocol.md), for tests.

Reads a port file (waiting for it to appear), connects to every rank's TCP
endpoint with its token, decodes every frame and prints one JSON object:

  ranks             the number of ranks (lines of the port file)
  attached          ranks that sent a HELLO
  refused           ranks that closed the connection without sending anything
  goodbyes          ranks that sent a GOODBYE
  functions         {name: {calls, time_ns, sent, recv}}: the last SNAPSHOT of
                    every rank, summed
  first_snapshot_calls  calls in each rank's first SNAPSHOT, summed
  events            {name: number of EVENTS records}
  event_bytes       {"sent": .., "recv": ..} summed over the records
  event_function_bytes  {name: {"sent": .., "recv": ..}}: the same per function
  traffic           {name: ["RANK>PEER tag TAG", ...]}: the distinct senders,
                    peers and tags of the function's records that carry traffic
  comms             {name: {RANK: [COMM, ...]}}: the distinct communicators
                    those records name, per rank
  counts            {"sent", "dropped", "unwatched"}: the last SNAPSHOT's, summed
  goodbye           {"sent", "dropped"}: the GOODBYE frames', summed
  inflight          {RANK: [{function, thread, seconds, peer, tag, root, comm,
                    comm_size, flags}, ...]}: each rank's last INFLIGHT frame
                    (absent for a rank that sent none)
  inflight_frames   {RANK: [frames, seconds]}: how many INFLIGHT frames the
                    rank sent, and the seconds from its first to its last
  errors            protocol violations found (an empty list when all is well)

Options: --token T sends T instead of each rank's token; --delay S waits S
seconds before connecting; --exit-after N exits abruptly (os._exit, as if
killed) once N events have arrived; --timeout S gives up after S seconds;
--watch S stops watching after S seconds and prints what it saw (ranks still
open then are no error: for jobs that hang on purpose); with --until-calls it
stops sooner, as soon as every rank has shown a call in progress (so a busy
machine only makes the wait longer, never the verdict different).
Standard library only.
"""
import argparse
import json
import os
import selectors
import socket
import struct
import sys
import time


def read_port_file(path, deadline):
    while time.monotonic() < deadline:
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                lines = [line.rstrip(" \n") for line in f if line.strip()]
            return lines
        time.sleep(0.05)
    raise SystemExit(f"raw_client: {path} did not appear")


class Rank:
    def __init__(self, fields):
        # mpiwatch-endpoint 1 RANK SIZE tcp HOST PORT TOKEN
        if fields[0] != "mpiwatch-endpoint" or fields[1] != "1":
            raise ValueError(f"not an endpoint line: {' '.join(fields)}")
        self.rank, self.size, self.transport = int(fields[2]), int(fields[3]), fields[4]
        if self.transport == "tcp":
            self.host, self.port, self.token = fields[5], int(fields[6]), fields[7]
        self.buf = b""
        self.got_any = False
        self.hello = None
        self.names = []
        self.snapshots = []
        self.goodbye = None
        self.closed = False


def decode_string(body, at):
    (n,) = struct.unpack_from("<H", body, at)
    return body[at + 2:at + 2 + n].decode("utf-8"), at + 2 + n


def handle_frame(r, kind, body, out, errors):
    if r.hello is None and kind != 1:
        errors.append(f"rank {r.rank}: frame {kind} before HELLO")
    if r.goodbye is not None:
        errors.append(f"rank {r.rank}: frame {kind} after GOODBYE")
    if kind == 1:
        version, rank, size, pid, epoch = struct.unpack_from("<HIIIQ", body, 0)
        at = 22
        host, at = decode_string(body, at)
        program, at = decode_string(body, at)
        timer, at = decode_string(body, at)
        mpi, at = decode_string(body, at)
        (count,) = struct.unpack_from("<I", body, at)
        at += 4
        names = []
        for _ in range(count):
            name, at = decode_string(body, at)
            names.append(name)
        if at != len(body):
            errors.append(f"rank {r.rank}: HELLO has {len(body) - at} extra bytes")
        if version != 1 or rank != r.rank or size != r.size:
            errors.append(f"rank {r.rank}: HELLO says version {version} rank {rank} size {size}")
        r.hello = {"pid": pid, "epoch": epoch, "host": host, "program": program, "timer": timer,
                   "mpi": mpi}
        r.names = names
    elif kind == 2:
        (count,) = struct.unpack_from("<I", body, 0)
        if len(body) != 4 + 56 * count:
            errors.append(f"rank {r.rank}: EVENTS of {count} records is {len(body)} bytes")
            return
        for i in range(count):
            fn, thread, t_in, t_out, peer, tag, comm, flags, sent, recv = struct.unpack_from(
                "<IIQQiiiIQQ", body, 4 + 56 * i)
            name = r.names[fn] if fn < len(r.names) else f"#{fn}"
            out["events"][name] = out["events"].get(name, 0) + 1
            out["event_bytes"]["sent"] += sent
            out["event_bytes"]["recv"] += recv
            fb = out["event_function_bytes"].setdefault(name, {"sent": 0, "recv": 0})
            fb["sent"] += sent
            fb["recv"] += recv
            if t_out < t_in:
                errors.append(f"rank {r.rank}: event {name} leaves before it enters")
            if thread != 0:
                errors.append(f"rank {r.rank}: event {name} from thread {thread} (one thread)")
            if flags == 0 and (peer, tag, comm, sent, recv) != (-1, -1, -1, 0, 0):
                errors.append(f"rank {r.rank}: event {name} without traffic has peer {peer} "
                              f"tag {tag} comm {comm} bytes {sent}/{recv}")
            elif flags == 1:
                if comm == -1 or not -1 <= peer < r.size:
                    errors.append(f"rank {r.rank}: event {name} has peer {peer} comm {comm}")
                comms = out["comms"].setdefault(name, {}).setdefault(str(r.rank), [])
                if comm not in comms:
                    comms.append(comm)
                seen = out["traffic"].setdefault(name, [])
                key = f"{r.rank}>{peer} tag {tag}"
                if key not in seen:
                    seen.append(key)
            elif flags > 1:
                errors.append(f"rank {r.rank}: event {name} has flags {flags}")
        out["events_total"] += count
    elif kind == 3:
        t, sent, dropped, unwatched, count = struct.unpack_from("<QQQQI", body, 0)
        if len(body) != 36 + 36 * count:
            errors.append(f"rank {r.rank}: SNAPSHOT of {count} entries is {len(body)} bytes")
            return
        entries = {}
        for i in range(count):
            fn, calls, time_ns, bsent, brecv = struct.unpack_from("<IQQQQ", body, 36 + 36 * i)
            entries[r.names[fn]] = (calls, time_ns, bsent, brecv)
        r.snapshots.append({"t": t, "sent": sent, "dropped": dropped, "unwatched": unwatched,
                            "entries": entries})
    elif kind == 4:
        t, sent, dropped = struct.unpack_from("<QQQ", body, 0)
        r.goodbye = {"sent": sent, "dropped": dropped}
    elif kind == 5:
        t, level = struct.unpack_from("<Qi", body, 0)
        out["levels"].append(level)
    elif kind == 6:
        t, count = struct.unpack_from("<QI", body, 0)
        if len(body) != 12 + 40 * count:
            errors.append(f"rank {r.rank}: INFLIGHT of {count} records is {len(body)} bytes")
            return
        calls = []
        for i in range(count):
            fn, thread, t_in, peer, tag, root, comm, comm_size, flags = struct.unpack_from(
                "<IIQiiiiiI", body, 12 + 40 * i)
            if t_in > t:
                errors.append(f"rank {r.rank}: INFLIGHT call entered after the frame's time")
            calls.append({"function": r.names[fn] if fn < len(r.names) else f"#{fn}",
                          "thread": thread, "seconds": (t - t_in) / 1e9, "peer": peer,
                          "tag": tag, "root": root, "comm": comm, "comm_size": comm_size,
                          "flags": flags})
        out["inflight"][str(r.rank)] = calls
        n, first, _ = out["inflight_frames_t"].get(str(r.rank), (0, t, t))
        out["inflight_frames_t"][str(r.rank)] = (n + 1, first, t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port_file")
    ap.add_argument("--token")
    ap.add_argument("--delay", type=float, default=0)
    ap.add_argument("--exit-after", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--watch", type=float, default=0)
    ap.add_argument("--until-calls", action="store_true")
    args = ap.parse_args()
    deadline = time.monotonic() + args.timeout
    lines = read_port_file(args.port_file, deadline)
    ranks = [Rank(line.split()) for line in lines]
    if args.delay:
        time.sleep(args.delay)
    sel = selectors.DefaultSelector()
    for r in ranks:
        if r.transport != "tcp":
            r.closed = True
            continue
        s = socket.create_connection((r.host, r.port), timeout=10)
        token = args.token if args.token is not None else r.token
        s.sendall(f"MPIWATCH 1 {token}\n".encode())
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, r)
    out = {"ranks": len(ranks), "events": {}, "events_total": 0,
           "event_bytes": {"sent": 0, "recv": 0}, "event_function_bytes": {}, "traffic": {}, "comms": {},
           "levels": [], "inflight": {}, "inflight_frames_t": {}}
    errors = []
    watch_end = time.monotonic() + args.watch if args.watch else None
    open_count = sum(1 for r in ranks if not r.closed)
    while open_count > 0 and time.monotonic() < deadline and \
            (watch_end is None or time.monotonic() < watch_end):
        for key, _ in sel.select(timeout=0.5):
            r, s = key.data, key.fileobj
            try:
                data = s.recv(1 << 20)
            except BlockingIOError:
                continue
            except ConnectionError:
                data = b""
            if not data:
                sel.unregister(s)
                s.close()
                r.closed = True
                open_count -= 1
                continue
            r.got_any = True
            r.buf += data
            while len(r.buf) >= 4:
                (length,) = struct.unpack_from("<I", r.buf, 0)
                if length < 1 or length > 1048576:
                    errors.append(f"rank {r.rank}: frame length {length}")
                    r.buf = b""
                    break
                if len(r.buf) < 4 + length:
                    break
                kind, body = r.buf[4], r.buf[5:4 + length]
                r.buf = r.buf[4 + length:]
                handle_frame(r, kind, body, out, errors)
            if args.exit_after and out["events_total"] >= args.exit_after:
                os._exit(3)
        if args.until_calls and len(ranks) > 0 and \
                all(out["inflight"].get(str(r.rank)) for r in ranks):
            break
    if open_count > 0 and watch_end is None:
        errors.append(f"{open_count} ranks still open at the time limit")
    functions = {}
    counts = {"sent": 0, "dropped": 0, "unwatched": 0}
    first = 0
    for r in ranks:
        if r.snapshots:
            first += sum(e[0] for e in r.snapshots[0]["entries"].values())
            last = r.snapshots[-1]
            for k in counts:
                counts[k] += last[k]
            for name, (calls, time_ns, bsent, brecv) in last["entries"].items():
                f = functions.setdefault(name, {"calls": 0, "time_ns": 0, "sent": 0, "recv": 0})
                f["calls"] += calls
                f["time_ns"] += time_ns
                f["sent"] += bsent
                f["recv"] += brecv
        if r.hello is not None and r.goodbye is None and watch_end is None:
            errors.append(f"rank {r.rank}: no GOODBYE")
        if r.buf and watch_end is None:
            errors.append(f"rank {r.rank}: {len(r.buf)} bytes of an incomplete frame")
    out.update({
        "attached": sum(1 for r in ranks if r.hello is not None),
        "refused": sum(1 for r in ranks if r.closed and not r.got_any),
        "goodbyes": sum(1 for r in ranks if r.goodbye is not None),
        "functions": functions,
        "first_snapshot_calls": first,
        "counts": counts,
        "goodbye": {"sent": sum(r.goodbye["sent"] for r in ranks if r.goodbye),
                    "dropped": sum(r.goodbye["dropped"] for r in ranks if r.goodbye)},
        "errors": errors[:20] + ([f"... and {len(errors) - 20} more"] if len(errors) > 20 else []),
    })
    for seen in out["traffic"].values():
        seen.sort()
    out["inflight_frames"] = {rank: [n, (last - first) / 1e9]
                              for rank, (n, first, last) in out.pop("inflight_frames_t").items()}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
