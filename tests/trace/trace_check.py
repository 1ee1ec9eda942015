#!/usr/bin/env python3
"""Checks of a traced run, for check-trace-ring.sh.

A decoder of the per-rank trace files written from docs/trace.md ("Format"),
independent of the client's reader, and checks of the client's Perfetto
output. Subcommands (each prints what it found and exits 1 on a mismatch):

  counts REPORT.json FILE...    per function, the calls in the files equal
                                the report's calls; the report's trace.events
                                is their total
  calls FILE...                 per function, the calls the files hold, one
                                "NAME N" line each, sorted (a file cut short
                                by a killed job: its whole chunks)
  written REPORT.json FILE...   the calls in the files equal the report's
                                trace.events, the drops they say its
                                trace.dropped, and the two its total calls
  sizes FILE...                 bytes per call of the files, with and
                                without their headers (the header, the
                                function names and the communicators)
  comms N GROUP FILE...         every file defines, for the communicators
                                its rank created, exactly N of world ranks
                                GROUP (a count NP for 0..NP-1), numbered
                                0..N-1 among the rank's communicators of
                                that group, each handle of them used by
                                the file's calls
  transfers DIR FILE...         each rank's records of the functions its
                                program named in DIR/transfers.expect.RANK
                                ("EXPECT rank function peer tag sent recv"
                                lines), in
                                order, have exactly those peers, tags and
                                bytes (tests/trace/transfers.c)
  mutate CLIENT FILE N          N damaged copies of FILE (bytes changed,
                                cut, repeated; seeded, so the same each run),
                                each converted by CLIENT alone: it never
                                crashes, exits 0 or 1, and its JSON parses
  perfetto OUT.json RANKS [REPORT.json]
                                OUT parses; one process per rank of RANKS
                                (a count NP for 0..NP-1, or a list: 0,2,3);
                                every flow id joins one "s" inside a send's
                                slice to one "f" inside an MPI_Recv's slice
                                of the message's destination; with REPORT,
                                as many flows as the report's messages
  regions REPORT.json OUT.json FILE...
                                per named region, the files' begins are the
                                report's entries and the calls inside it
                                (nested ones too) its calls; ends close the
                                innermost region, none left open; the
                                Perfetto OUT begins and ends each as often
  pcontrol LEVELS FILE...       each file's MPI_Pcontrol marks have LEVELS
                                (e.g. 0,1), and nothing but MPI_Pcontrol
                                was recorded between a 0 and the next
  limited REPORT.json LIMITS WINDOW FUNCTIONS FILE...
                                every file says LIMITS (its limit lines
                                joined by ";", "" for none); every call
                                entered inside WINDOW (START:END seconds
                                after the origin, either side empty, no
                                START keeping MPI_Init; "" for none);
                                FUNCTIONS (names or the report's
                                categories, comma-separated, "-" before one
                                to exclude it, "" for all) are the only
                                functions in the files; with no WINDOW each
                                has exactly the report's calls, else some
                                calls but fewer than the report's
"""
import bisect
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
from collections import Counter


def varint(buf, pos):
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def unzigzag(value):
    return (value >> 1) ^ -(value & 1)


def signed(buf, pos):
    value, pos = varint(buf, pos)
    return unzigzag(value), pos


ROOTED = {"MPI_Bcast", "MPI_Reduce", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter",
          "MPI_Scatterv", "MPI_Ibcast", "MPI_Ireduce"}
HEADERS = {}  # path: (ticks per second, origin, the limits' text)
HEADER_BYTES = {}  # path: the bytes of its header, function names and communicators
COMMS = {}  # path: the communicators it defines: (handle, tick, before, members)
MARKS = {}  # path: its marks in file order: thread, t, what (0 begin, 1 end, 2 Pcontrol),
# value (the region's name; the level), calls_before (the file's calls read before it)


def relative(buf, pos, none, last, sort="comm"):
    """(a communicator, the next pos): varint 0 for none, else 1 + zigzag of
    the value after the chunk's previous one."""
    coded, pos = varint(buf, pos)
    if coded == 0:
        return none, pos
    last[sort] += unzigzag(coded - 1)
    return last[sort], pos


RECENT = 16  # include/mpiwatch_trace.h, MWT_RECENT


def request_handle(buf, pos, recent):
    """(a request's handle, 0 for none, the next pos), against the chunk's
    recently named handles (most recent first), which it updates."""
    code, pos = varint(buf, pos)
    if code == 0:
        return 0, pos
    if code <= RECENT:
        if code > len(recent):
            raise ValueError(f"a request names recent handle {code} of {len(recent)}")
        handle = recent.pop(code - 1)
    else:
        handle = ((recent[0] if recent else 0) + unzigzag(code - RECENT - 1)) % (1 << 64)
        if len(recent) == RECENT:
            recent.pop()
    recent.insert(0, handle)
    return handle, pos


def receives(name):
    """A receive's function (MPI_Irecv, MPI_Imrecv, their large forms)."""
    low = name.lower()
    return "recv" in low and "sendrecv" not in low


def match_requests(calls):
    """Name requests by the starting call's place + 1 (as the C reader does,
    client/trace_requests.c): a completion belongs to the latest start of its
    handle that left before the completing call entered. A completion no
    start matches keeps its handle as ("unmatched", handle)."""
    events = []
    for i, c in enumerate(calls):
        if c["request"]:
            events.append((c["request"], c["t_out"], 0, i, 0))
        for j, d in enumerate(c["done"]):
            if d[0]:
                events.append((d[0], c["t_in"], 1, i, j))
    events.sort()
    matched = {}
    opened = {}
    for handle, _t, done, i, j in events:
        stack = opened.setdefault(handle, [])
        if not done:
            stack.append(i)
        elif stack:
            matched[(i, j)] = stack.pop()
    for i, c in enumerate(calls):
        if c["request"]:
            c["request"] = i + 1
    for i, c in enumerate(calls):
        for j, d in enumerate(c["done"]):
            if not d[0]:
                continue
            s = matched.get((i, j))
            if s is None:
                c["done"][j] = (("unmatched", d[0]), -1, -1, 0)
                continue
            start = calls[s]
            source, tag, size = d[1], d[2], d[3]
            if not receives(start["fn"]):
                source, tag, size = -1, -1, 0
            elif source < 0 <= tag and start["moved"] and start["moved"][0] >= 0:
                source = start["moved"][0]
            c["done"][j] = (s + 1, source, tag, size)


def records(path):
    """(rank, the call records of one trace file, calls dropped). A record is
    a dict: fn, thread, t_in, t_out, count, request, root, done (a list of
    (request, source, tag, bytes))."""
    buf = open(path, "rb").read()
    if buf[:8] != b"MWTRACE\0" or struct.unpack_from("<I", buf, 8)[0] != 6:
        raise ValueError(f"{path}: not a version-6 trace file")
    pos = 12
    rank, pos = varint(buf, pos)
    _ranks, pos = varint(buf, pos)
    per_second = struct.unpack_from("<d", buf, pos)[0]
    pos += 8
    origin, pos = varint(buf, pos)
    _wall, pos = varint(buf, pos)
    HEADER_BYTES[path] = pos
    names = {}  # function id: name, as the file names them before their calls
    calls, dropped, limits = [], 0, ""
    regions = {}  # region id: name (0xCC)
    MARKS[path] = []
    COMMS[path] = []
    while pos < len(buf):
        if buf[pos] == 0xCB:  # a communicator: handle, tick, before, runs of world ranks
            start = pos
            try:
                handle, pos = signed(buf, pos + 1)
                tick, pos = varint(buf, pos)
                before, pos = varint(buf, pos)
                runs, pos = varint(buf, pos)
                members, end = [], 0
                for _ in range(runs):
                    delta, pos = signed(buf, pos)
                    length, pos = varint(buf, pos)
                    members += range(end + delta, end + delta + length)
                    end = end + delta + length
            except IndexError:  # cut short (a killed job)
                break
            COMMS[path].append((handle, tick, before, members))
            HEADER_BYTES[path] += pos - start
            continue
        if buf[pos] in (0xCA, 0xCC):  # function or region names: a count, then id, length, name
            start = pos
            table = names if buf[pos] == 0xCA else regions
            try:
                count, pos = varint(buf, pos + 1)
                for _ in range(count):
                    fn, pos = varint(buf, pos)
                    length, pos = varint(buf, pos)
                    if pos + length > len(buf):
                        raise IndexError
                    name = buf[pos:pos + length].decode()
                    if table.setdefault(fn, name) != name:
                        raise ValueError(f"{path}: function or region {fn} named twice, "
                                         "differently")
                    pos += length
            except IndexError:  # cut short (a killed job)
                break
            HEADER_BYTES[path] += pos - start
            continue
        if buf[pos] == 0xC9:  # the user's limits: a length and "VAR=value" lines
            length, pos = varint(buf, pos + 1)
            limits = buf[pos:pos + length].decode()
            pos += length
            continue
        if buf[pos] == 0xC8:  # a sync point: the rank's ticks, rank 0's
            _, pos = varint(buf, pos + 1)
            _, pos = varint(buf, pos)
            continue
        if buf[pos] != 0xC7:
            raise ValueError(f"{path}: no chunk marker at offset {pos}")
        try:
            thread, pos = varint(buf, pos + 1)
            length, pos = varint(buf, pos)
            t, pos = varint(buf, pos)
        except IndexError:  # a chunk's head cut short: as below
            break
        end = pos + length
        if end > len(buf):  # cut short (a killed job): the whole chunks before it count
            break
        last = {"comm": 0}  # the chunk's previous communicator, for relative()
        recent = []  # the chunk's recently named request handles
        while pos < end:
            kind = buf[pos]
            pos += 1
            if kind == 3:
                n, pos = varint(buf, pos)
                dropped += n
                continue
            if kind in (4, 6, 8):
                request, pos = request_handle(buf, pos, recent)
            if kind == 4:
                calls[-1]["request"] = request
                continue
            if kind == 5:
                calls[-1]["root"], pos = signed(buf, pos)
                continue
            if kind == 6:
                source, pos = signed(buf, pos)
                tag, pos = signed(buf, pos)
                size, pos = varint(buf, pos)
                calls[-1]["done"].append((request, source, tag, size))
                continue
            if kind == 8:  # a completion without a status
                calls[-1]["done"].append((request, -1, -1, 0))
                continue
            if kind == 9:  # a mark: what, value, enter delta
                what, pos = varint(buf, pos)
                value, pos = varint(buf, pos)
                enter, pos = varint(buf, pos)
                t += enter
                if what > 2 or (what < 2 and value not in regions):
                    raise ValueError(f"{path}: a mark {what} of unnamed region {value}")
                MARKS[path].append({"thread": thread, "t": t, "what": what,
                                    "value": regions[value] if what < 2 else value,
                                    "calls_before": len(calls)})
                continue
            if kind not in (1, 2, 7):
                raise ValueError(f"{path}: record kind {kind} at offset {pos - 1}")
            fn, pos = varint(buf, pos)
            _site, pos = signed(buf, pos)
            enter, pos = varint(buf, pos)
            duration, pos = varint(buf, pos)
            comm = moved = None
            if kind == 2:
                peer, pos = signed(buf, pos)
                tag, pos = signed(buf, pos)
                comm, pos = relative(buf, pos, -1, last, "comm")
                sent, pos = varint(buf, pos)
                recv, pos = varint(buf, pos)
                moved = (peer, tag, sent, recv)
            n = 1
            if kind == 7:
                n, pos = varint(buf, pos)
            t += enter
            if fn not in names:
                raise ValueError(f"{path}: function {fn} called before the file names it")
            calls.append({"fn": names[fn], "thread": thread, "t_in": t, "t_out": t + duration,
                          "comm": comm, "moved": moved, "count": n, "request": 0, "root": None,
                          "done": []})
        if pos != end:
            raise ValueError(f"{path}: a chunk's records overrun its length")
    HEADERS[path] = (per_second, origin, limits)
    match_requests(calls)
    return rank, calls, dropped


def sizes(files):
    """Bytes per call of the files: in all, and without their headers."""
    calls = size = header = 0
    for path in files:
        calls += sum(c["count"] for c in records(path)[1])
        size += os.path.getsize(path)
        header += HEADER_BYTES[path]
    if calls == 0:
        print(f"no call in {len(files)} files")
        return 1
    print(f"{calls} calls, {size} bytes ({header} of headers): {size / calls:.1f} bytes a call, "
          f"{(size - header) / calls:.1f} without the headers")
    return 0


def comms(n, group, files):
    """Each file defines n communicators of world ranks group, numbered
    0..n-1 among the rank's of that group, each handle used by its calls."""
    problems = []
    for path in files:
        _rank, calls, _ = records(path)
        used = {c["comm"] for c in calls}
        mine = [c for c in COMMS[path] if c[3] == group]
        if sorted(c[2] for c in mine) != list(range(n)):
            problems.append(f"{path}: communicators of {group}: numbered "
                            f"{sorted(c[2] for c in mine)}, expected 0..{n - 1}")
        problems += [f"{path}: communicator handle {c[0]} is used by no call"
                     for c in mine if c[0] not in used]
    for p in problems[:10]:
        print(p)
    if not problems:
        print(f"{len(files)} files: {n} communicators of world ranks {group[:8]} each, "
              f"numbered alike")
    return 1 if problems else 0


def verdict(problems, found):
    """Print the first problems, or what was found when there is none: the
    exit status."""
    for p in problems[:10]:
        print(p)
    if not problems:
        print(found)
    return 1 if problems else 0


def decode(path):
    """(rank, per-function call counts, calls dropped) of one trace file."""
    rank, calls, dropped = records(path)
    counted = Counter()
    for c in calls:
        counted[c["fn"]] += c["count"]
    return rank, counted, dropped


def requests(files):
    problems, started, completed, rooted = [], 0, 0, 0
    for path in files:
        rank, calls, _ = records(path)
        open_ = {}
        for c in sorted(calls, key=lambda c: (c["t_in"], c["t_out"])):
            if c["request"]:
                if c["request"] in open_:
                    problems.append(f"rank {rank}: request {c['request']} started twice")
                open_[c["request"]] = c
                started += 1
            for request, *_ in c["done"]:
                start = open_.pop(request, None)
                if start is None:
                    problems.append(f"rank {rank}: {c['fn']} completes request {request}, "
                                    "which no call started before it")
                else:
                    completed += 1
            if c["fn"] in ROOTED:
                rooted += 1
                if c["root"] is None or c["root"] < 0:
                    problems.append(f"rank {rank}: {c['fn']} without its root")
        for request, c in open_.items():
            problems.append(f"rank {rank}: request {request} of {c['fn']} never completed")
    return verdict(problems, f"{started} requests started, {completed} completed, {rooted} "
                             "rooted collectives with their root")


def polls(files, least, function):
    found = calls = longest = 0
    for path in files:
        for c in records(path)[1]:
            if c["fn"] == function:
                found += 1
                calls += c["count"]
                longest = max(longest, c["count"])
    print(f"{function}: {calls} calls in {found} records, the longest fold {longest} calls "
          f"(at least {least} wanted)")
    return 0 if longest >= least else 1


def counts(report, files):
    calls = Counter()
    for path in files:
        calls.update(decode(path)[1])
    want = {name: f["calls"] for name, f in report["functions"].items() if f["calls"]}
    got = dict(calls)
    if got != want:
        for name in sorted(set(want) | set(got)):
            if want.get(name, 0) != got.get(name, 0):
                print(f"{name}: report {want.get(name, 0)}, trace {got.get(name, 0)}")
        return 1
    if report.get("trace", {}).get("events") != sum(got.values()):
        print(f"report trace.events {report.get('trace')}, files {sum(got.values())}")
        return 1
    print(f"{len(got)} functions, {sum(got.values())} calls, as the report")
    return 0


def calls(files):
    """Per function, the calls the files hold, as "NAME N" lines."""
    counted = Counter()
    for path in files:
        counted.update(decode(path)[1])
    for name in sorted(counted):
        print(f"{name} {counted[name]}")
    return 0


def written(report, files):
    recorded = dropped = 0
    for path in files:
        _, calls, lost = decode(path)
        recorded += sum(calls.values())
        dropped += lost
    trace = report.get("trace", {})
    total = sum(f["calls"] for f in report["functions"].values())
    if recorded != trace.get("events") or trace.get("events", 0) + trace.get("dropped", 0) != total \
            or dropped != trace.get("dropped", 0):
        print(f"files: {recorded} calls, {dropped} said dropped; report: trace {trace}, "
              f"{total} calls")
        return 1
    print(f"{recorded} calls written, {trace['dropped']} dropped, {total} calls in the report")
    return 0


# A send-receive is both: an arrow leaves it and one ends in it (its own
# receive is in its "completed", as request 0).
SENDRECVS = {"MPI_Sendrecv", "MPI_Sendrecv_replace"}
SENDS = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Isend", "MPI_Issend",
         "MPI_Ibsend", "MPI_Irsend"} | SENDRECVS


class Threads:
    """Each thread's slices in time order, to find the one holding a time in
    log n (a ring of 80,000 send-receives has 160,000 flow ends)."""

    def __init__(self, slices):
        self.by = {}
        for key, calls in slices.items():
            calls = sorted(calls, key=lambda s: s["ts"])
            self.by[key] = ([s["ts"] for s in calls], calls)


# A thread's calls follow one another: the slice holding a time is among the
# last few that start before it (a long MPI_Init must not widen the search).
NEAR = 4


def inside(threads, ev):
    """Of the nearest slices of ev's pid and tid that contain ev's time (to
    the printed times' rounding), the one it lies deepest in (of two alike,
    the later), or None: a call may end in the nanosecond the next one
    starts in."""
    starts, calls = threads.by.get((ev["pid"], ev["tid"]), ([], []))
    found, depth = None, None
    j = bisect.bisect_right(starts, ev["ts"]) - 1
    for i in range(j, max(j - NEAR, -1), -1):
        s = calls[i]
        if s["ts"] <= ev["ts"] <= s["ts"] + s["dur"] + 0.0011:
            d = round(min(ev["ts"] - s["ts"], s["ts"] + s["dur"] - ev["ts"]), 4)
            if depth is None or d > depth:   # a tie: the later start
                found, depth = s, d
    return found


def received(slices, pid, done):
    """(source, tag) of a completed receive: its status's, else its own
    arguments' (the non-blocking receive's slice with its request id)."""
    if done[1] >= 0:
        return done[1], done[2]
    for (p, _), calls in slices.items():
        for c in calls:
            if p == pid and c["args"].get("request") == done[0]:
                return c["args"]["peer"], c["args"]["tag"]
    return None


def perfetto(path, ranks, report=None):
    events = json.load(open(path, encoding="utf-8"))["traceEvents"]
    procs = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    slice_pids = {e["pid"] for e in events if e["ph"] == "X"}
    problems = []
    if procs != set(ranks) or not slice_pids <= procs:
        problems.append(f"processes {sorted(procs)}, slices in {sorted(slice_pids)}, "
                        f"expected ranks {sorted(ranks)}")
    slices = {}
    for e in events:
        if e["ph"] == "X":
            slices.setdefault((e["pid"], e["tid"]), []).append(e)
    threads = Threads(slices)
    ends = {}
    for e in events:
        if e["ph"] in "sf":
            ends.setdefault(e["id"], []).append(e)
    for fid, pair in ends.items():
        kinds = sorted(e["ph"] for e in pair)
        if kinds != ["f", "s"]:
            problems.append(f"flow {fid}: {kinds}")
            continue
        start = next(e for e in pair if e["ph"] == "s")
        finish = next(e for e in pair if e["ph"] == "f")
        send, recv = inside(threads, start), inside(threads, finish)
        if send is None or send["name"] not in SENDS:
            problems.append(f"flow {fid} starts outside a send: {start}")
        elif send["dur"] >= 0.002 and start["ts"] - send["ts"] < 0.0005:
            # at the send's first nanosecond, where the call before may end
            problems.append(f"flow {fid} starts on its send's edge: {start}, {send}")
        elif recv is None or not (recv["name"] in {"MPI_Recv"} | SENDRECVS or
                                  recv["name"].startswith(("MPI_Wait", "MPI_Test"))):
            problems.append(f"flow {fid} ends outside a receive: {finish}")
        elif send["args"]["peer"] != recv["pid"] or \
                (send["pid"], send["args"]["tag"]) not in (
                    [received(slices, recv["pid"], d) for d in recv["args"].get("completed", [])]
                    if recv["name"] != "MPI_Recv"
                    else [(recv["args"]["peer"], recv["args"]["tag"])]):
            problems.append(f"flow {fid} joins {send} to {recv}")
    if report is not None:
        messages = sum(p["messages"] for p in report.get("pairs", []))
        if messages != len(ends):
            problems.append(f"{len(ends)} flows, the report has {messages} messages")
    for p in problems[:10]:
        print(p)
    if not problems:
        print(f"{len(procs)} processes, {len(ends)} flows, each from a send to its receive")
    return 1 if problems else 0


def window(full):
    """About the middle third of a converted trace's work (from the first
    call after MPI_Init to the end of the last before MPI_Finalize), START:END in
    seconds, each end a whole microsecond at least 0.01 us from every call's
    entry and exit (the file's times are rounded to 0.001 us)."""
    xs = [e for e in json.load(open(full, encoding="utf-8"))["traceEvents"] if e["ph"] == "X"]
    edges = sorted({e["ts"] for e in xs} | {e["ts"] + e["dur"] for e in xs})
    work = [e for e in xs if e["name"] not in ("MPI_Init", "MPI_Init_thread", "MPI_Finalize")]
    begin = min([e["ts"] for e in work] or [0])
    end = max([e["ts"] + e["dur"] for e in work] or [edges[-1]])

    def clear(us):
        while True:
            i = bisect.bisect_left(edges, us - 0.01)
            if i == len(edges) or edges[i] > us + 0.01:
                return us
            us += 1

    third = (end - begin) / 3
    print(f"{clear(int(begin + third)) / 1e6:.6f}:{clear(int(begin + 2 * third)) / 1e6:.6f}")
    return 0


def selected(full, part, ranks, start, end):
    """part is full converted with --ranks ranks --window start:end: exactly
    the slices of those ranks that overlap the window (by the same times),
    exactly the flows of full whose two ends are in them, and otherData
    saying how many calls it left out."""
    def slices(doc):
        return {(e["pid"], e["tid"], e["ts"], e["name"]): e
                for e in doc["traceEvents"] if e["ph"] == "X"}

    def flows(doc, kept):
        """Its flows between two kept slices, each as the two slices' keys."""
        by_thread = {}
        for e in kept.values():
            by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
        threads = Threads(by_thread)
        ends = {}
        for e in doc["traceEvents"]:
            if e["ph"] in "sf":
                ends.setdefault(e["id"], {})[e["ph"]] = e
        found = set()
        for pair in ends.values():
            calls = [inside(threads, pair[k]) for k in "sf" if k in pair]
            if len(calls) == 2 and None not in calls:
                found.add(tuple((c["pid"], c["tid"], c["ts"]) for c in calls))
        return found

    whole, sub = json.load(open(full, encoding="utf-8")), json.load(open(part, encoding="utf-8"))
    lo, hi = float(start) * 1e6, float(end) * 1e6
    want = {k: e for k, e in slices(whole).items()
            if e["pid"] in ranks and e["ts"] + e["dur"] >= lo and e["ts"] <= hi}
    got = slices(sub)
    problems = []
    if set(got) != set(want):
        problems.append(f"{len(got)} slices, expected the {len(want)} of ranks {sorted(ranks)} "
                        f"overlapping {start}:{end} ({len(set(got) - set(want))} extra)")
    flows_want, flows_got = flows(whole, want), flows(sub, got)
    if flows_got != flows_want:
        problems.append(f"{len(flows_got)} flows, expected {len(flows_want)}")
    calls = sum(e["args"].get("polls", 1) for e in slices(whole).values())
    kept = sum(e["args"].get("polls", 1) for e in got.values())
    said = sub.get("otherData", {}).get("left_out", "")
    if not said.startswith(f"{calls - kept} of {calls} calls left out"):
        problems.append(f"otherData.left_out is {said!r}, expected {calls - kept} of {calls}")
    for p in problems:
        print(p)
    if not problems:
        print(f"{len(got)} of {calls} calls, {len(flows_got)} flows, {said!r}")
    return 1 if problems else 0


def mutate(client, path, count):
    """Convert count damaged copies of path with client; 1 on any crash."""
    data = open(path, "rb").read()
    rng = random.Random(29)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, os.path.basename(path))
        out = os.path.join(tmp, "out.json")
        for i in range(count):
            bad = bytearray(data)
            how = i % 3
            if how == 0:  # bytes changed, in the header or anywhere
                for _ in range(rng.randint(1, 8)):
                    at = rng.randrange(min(len(bad), 64) if i % 2 else len(bad))
                    bad[at] = rng.randrange(256)
            elif how == 1:  # cut anywhere
                del bad[rng.randrange(len(bad)):]
            else:  # a run of bytes repeated
                at = rng.randrange(len(bad))
                bad[at:at] = bad[at:at + rng.randint(1, 64)] * rng.randint(1, 4)
            open(copy, "wb").write(bad)
            run = subprocess.run([client, "--quiet", "--trace", tmp, "--perfetto", out],
                                 capture_output=True, timeout=60, check=False)
            if run.returncode not in (0, 1):
                problems.append(f"copy {i}: exit {run.returncode}: {run.stderr[-300:]!r}")
            elif os.path.exists(out):
                try:
                    json.load(open(out, encoding="utf-8"))
                except ValueError as err:
                    problems.append(f"copy {i}: the JSON does not parse: {err}")
            if os.path.exists(out):
                os.unlink(out)
    for p in problems[:10]:
        print(p)
    if not problems:
        print(f"{count} damaged copies converted without a crash")
    return 1 if problems else 0


def chosen(report, functions):
    """The report's functions that a FUNCTIONS list keeps (names or
    categories; "-" excludes; no inclusion: every function)."""
    items = [i for i in functions.split(",") if i]
    def named(item, name, f):
        return item in (name, f["category"])
    keep = set()
    for name, f in report["functions"].items():
        inc = [i for i in items if not i.startswith("-")]
        exc = [i[1:] for i in items if i.startswith("-")]
        if (not inc or any(named(i, name, f) for i in inc)) and \
                not any(named(i, name, f) for i in exc):
            keep.add(name)
    return keep


def limited(report, limits, window, functions, files):
    problems, got = [], Counter()
    start, _, end = window.partition(":")
    start, end = float(start or 0), float(end or "inf")
    keep = chosen(report, functions)
    for path in files:
        _rank, calls, _dropped = records(path)
        per_second, origin, said = HEADERS[path]
        if ";".join(said.splitlines()) != limits:
            problems.append(f"{path}: the file says limits {said!r}, expected {limits!r}")
        first = origin + start * per_second if start > 0 else 0  # else MPI_Init's too
        outside = [c for c in calls if not first <= c["t_in"] <= origin + end * per_second]
        if outside:
            problems.append(f"{path}: {len(outside)} calls outside {start}:{end} s, "
                            f"the first {outside[0]['fn']}")
        for c in calls:
            got[c["fn"]] += c["count"]
    stray = set(got) - keep
    if stray:
        problems.append(f"functions the limits leave out are in the files: {sorted(stray)}")
    want = {n: report["functions"][n]["calls"] for n in keep}
    if not window:
        for name in sorted(keep):
            if got[name] != want[name]:
                problems.append(f"{name}: {got[name]} calls in the files, {want[name]} reported")
    elif not 0 < sum(got.values()) < sum(want.values()):
        problems.append(f"{sum(got.values())} calls in the window, of {sum(want.values())} "
                        "reported: expected some, not all")
    for p in problems[:10]:
        print(p)
    if not problems:
        print(f"{sum(got.values())} calls of {len(got)} functions ({sorted(got)[:4]}...), "
              f"limits {limits!r}")
    return 1 if problems else 0


def transfers(folder, files):
    """Each rank's records of the functions its program said it called
    (folder/transfers.expect.RANK: "EXPECT rank function peer tag sent recv"
    lines), in order: their peers, tags and bytes as the program expected
    them."""
    expected = {}
    for name in sorted(os.listdir(folder)):
        if not name.startswith("transfers.expect."):
            continue
        for line in open(os.path.join(folder, name), encoding="utf-8", errors="replace"):
            words = line.split()
            if len(words) == 7 and words[0] == "EXPECT":
                rank, fn = int(words[1]), words[2]
                expected.setdefault(rank, []).append((fn, *map(int, words[3:])))
    if not expected:
        print(f"{folder}: no transfers.expect.RANK with EXPECT lines")
        return 1
    problems, compared = [], 0
    for path in files:
        rank, calls, _ = records(path)
        wanted = expected.pop(rank, [])
        names = {w[0] for w in wanted}
        found = [(c["fn"], *c["moved"]) for c in sorted(calls, key=lambda c: c["t_in"])
                 if c["fn"] in names and c["moved"] is not None]
        if len(found) != len(wanted):
            problems.append(f"rank {rank}: {len(found)} records of {sorted(names)}, "
                            f"{len(wanted)} calls expected")
        for i, (f, w) in enumerate(zip(found, wanted)):
            if f != w:
                problems.append(f"rank {rank}, call {i}: recorded {f}, expected {w} "
                                "(function, peer, tag, sent, recv)")
                break
        compared += min(len(found), len(wanted))
    for rank in sorted(expected):
        problems.append(f"rank {rank}: no trace file")
    return verdict(problems, f"{compared} calls of {len(files)} ranks recorded with the peers, "
                             "tags and bytes their programs expected")


def regions_check(report, perfetto_path, files):
    """Per named region, the begins in the files are the report's entries and
    the calls each thread made inside it (nested ones too) the report's calls;
    every end closes the thread's innermost region, none is left open; the
    Perfetto file begins and ends each region as often."""
    problems, begun, inside = [], Counter(), Counter()
    for path in files:
        rank, calls, _ = records(path)
        by_thread = {}
        for i, c in enumerate(calls):
            by_thread.setdefault(c["thread"], []).append(("call", c["t_in"], i, c))
        for m in MARKS[path]:
            by_thread.setdefault(m["thread"], []).append(("mark", m["t"], -1, m))
        for thread, events in by_thread.items():
            events.sort(key=lambda e: (e[1], e[0] == "call", e[2]))
            stack = []
            for sort, _t, _i, e in events:
                if sort == "call":
                    for name in set(stack):
                        inside[name] += e["count"]
                elif e["what"] == 0:
                    stack.append(e["value"])
                    begun[e["value"]] += 1
                elif e["what"] == 1:
                    if not stack or stack[-1] != e["value"]:
                        problems.append(f"rank {rank} thread {thread}: region {e['value']} "
                                        f"ended, innermost open {stack[-1:]}")
                    else:
                        stack.pop()
            if stack:
                problems.append(f"rank {rank} thread {thread}: regions {stack} never ended")
    want = report.get("regions", {})
    for name in sorted(set(want) | set(begun)):
        w = want.get(name, {})
        if begun[name] != w.get("entries") or inside[name] != w.get("calls"):
            problems.append(f"region {name}: {begun[name]} begins, {inside[name]} calls inside; "
                            f"the report: {w.get('entries')} entries, {w.get('calls')} calls")
    events = json.load(open(perfetto_path, encoding="utf-8"))
    events = events["traceEvents"] if isinstance(events, dict) else events
    slices = Counter((e["name"], e["ph"]) for e in events if e.get("cat") == "region")
    for name in begun:
        if slices[(name, "B")] != begun[name] or slices[(name, "E")] != begun[name]:
            problems.append(f"region {name}: Perfetto begins {slices[(name, 'B')]}, ends "
                            f"{slices[(name, 'E')]}, for {begun[name]} in the files")
    return verdict(problems, ", ".join(f"{n}: {begun[n]} entries, {inside[n]} calls"
                                       for n in sorted(begun)) + ", as the report and Perfetto")


def pcontrol_check(levels, files):
    """Each file's MPI_Pcontrol marks have LEVELS (comma-separated) in order,
    on one thread, and between a 0 and the next level no call was recorded
    but MPI_Pcontrol's own."""
    want, problems = [int(v) for v in levels.split(",")], []
    for path in files:
        rank, calls, _ = records(path)
        marks = [m for m in MARKS[path] if m["what"] == 2]
        got = [m["value"] for m in marks]
        if got != want:
            problems.append(f"rank {rank}: levels {got}, not {want}")
            continue
        for a, b in zip(marks, marks[1:]):
            if a["value"] == 0:
                between = [c["fn"] for c in calls[a["calls_before"]:b["calls_before"]]
                           if c["fn"] != "MPI_Pcontrol"]
                if between:
                    problems.append(f"rank {rank}: {between[:3]} recorded while paused")
    return verdict(problems, f"{len(files)} files: MPI_Pcontrol levels {want} marked, nothing "
                             "recorded while paused")


def main(argv):
    if len(argv) >= 5 and argv[0] == "limited":
        report = json.load(open(argv[1], encoding="utf-8"))
        return limited(report, argv[2], argv[3], argv[4], argv[5:])
    if len(argv) >= 3 and argv[0] in ("counts", "written"):
        report = json.load(open(argv[1], encoding="utf-8"))
        return (counts if argv[0] == "counts" else written)(report, argv[2:])
    if len(argv) >= 4 and argv[0] == "comms":
        group = [int(r) for r in argv[2].split(",")] if "," in argv[2] else \
            list(range(int(argv[2])))
        return comms(int(argv[1]), group, argv[3:])
    if len(argv) >= 2 and argv[0] == "sizes":
        return sizes(argv[1:])
    if len(argv) >= 2 and argv[0] == "calls":
        return calls(argv[1:])
    if len(argv) >= 3 and argv[0] == "transfers":
        return transfers(argv[1], argv[2:])
    if len(argv) >= 2 and argv[0] == "requests":
        return requests(argv[1:])
    if len(argv) >= 4 and argv[0] == "regions":
        return regions_check(json.load(open(argv[1], encoding="utf-8")), argv[2], argv[3:])
    if len(argv) >= 3 and argv[0] == "pcontrol":
        return pcontrol_check(argv[1], argv[2:])
    if len(argv) >= 4 and argv[0] == "polls":
        return polls(argv[1:-2], int(argv[-2]), argv[-1])
    if len(argv) == 2 and argv[0] == "window":
        return window(argv[1])
    if len(argv) == 6 and argv[0] == "selected":
        return selected(argv[1], argv[2], [int(r) for r in argv[3].split(",")], argv[4], argv[5])
    if len(argv) == 4 and argv[0] == "mutate":
        return mutate(argv[1], argv[2], int(argv[3]))
    if len(argv) in (3, 4) and argv[0] == "perfetto":
        report = json.load(open(argv[3], encoding="utf-8")) if len(argv) == 4 else None
        ranks = [int(r) for r in argv[2].split(",")] if "," in argv[2] else range(int(argv[2]))
        return perfetto(argv[1], ranks, report)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
