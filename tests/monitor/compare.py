#!/usr/bin/env python3
"""Check a raw_client.py result against the job's JSON report.

    compare.py CLIENT_JSON REPORT_JSON [--attached-from-start]

The final SNAPSHOTs summed over the ranks must equal the report's functions
(calls and bytes exactly, time to rounding); every rank attached and said
goodbye; no protocol error; sent + dropped + unwatched = all calls; the
report's monitor section has the same counters. With --attached-from-start
(MPIWATCH_WAIT held MPI_Init until the client came), the first SNAPSHOT is
empty and, when nothing was dropped, the events of each function number its
calls and carry its bytes, and ring.c's MPI_Sendrecv events name the next
rank and tag 7, and on every rank one communicator, another than its
MPI_Allreduce events' one. Prints what differs; exit status 1 if anything does.
"""
import json
import sys

client = json.load(open(sys.argv[1], encoding="utf-8"))
report = json.load(open(sys.argv[2], encoding="utf-8"))
from_start = "--attached-from-start" in sys.argv
bad = []
if client["errors"]:
    bad.append(f"protocol errors: {client['errors']}")
n = report["ranks"]
if client["attached"] != n or client["goodbyes"] != n:
    bad.append(f"{client['attached']} ranks attached and {client['goodbyes']} said goodbye, of {n}")
mine, theirs = client["functions"], report["functions"]
if set(mine) != set(theirs):
    bad.append(f"functions differ: snapshot only {sorted(set(mine) - set(theirs))}, "
               f"report only {sorted(set(theirs) - set(mine))}")
for name in sorted(set(mine) & set(theirs)):
    m, r = mine[name], theirs[name]
    for a, b in (("calls", "calls"), ("sent", "bytes_sent"), ("recv", "bytes_recv")):
        if m[a] != r[b]:
            bad.append(f"{name}: {a} {m[a]} in the snapshots, {r[b]} in the report")
    t = m["time_ns"] / 1e9
    if abs(t - r["time"]) > 1e-6 * abs(r["time"]) + n * 2e-9:
        bad.append(f"{name}: time {t!r} in the snapshots, {r['time']!r} in the report")
calls = sum(f["calls"] for f in mine.values())
c = client["counts"]
if c["sent"] + c["dropped"] + c["unwatched"] != calls:
    bad.append(f"sent {c['sent']} + dropped {c['dropped']} + unwatched {c['unwatched']} != calls {calls}")
if client["goodbye"]["sent"] != client["events_total"]:
    bad.append(f"GOODBYE says {client['goodbye']['sent']} events sent, {client['events_total']} arrived")
mon = report.get("monitor")
want = {"transport": "tcp", "events_sent": c["sent"], "events_dropped": c["dropped"],
        "events_unwatched": c["unwatched"],
        # snapshots the rank held back while the client was behind: any count
        "snapshots_skipped": (mon or {}).get("snapshots_skipped")}
if not isinstance(want["snapshots_skipped"], int) or want["snapshots_skipped"] < 0:
    bad.append(f"the report's monitor section has no snapshots_skipped count: {mon}")
elif mon != want:
    bad.append(f"the report's monitor section is {mon}, expected {want}")
if from_start:
    if client["first_snapshot_calls"] != 0:
        bad.append(f"the first snapshots hold {client['first_snapshot_calls']} calls: "
                   "MPI_Init did not wait for the client")
    if c["dropped"] == 0 and c["unwatched"] == 0:
        for name, f in mine.items():
            if client["events"].get(name, 0) != f["calls"]:
                bad.append(f"{name}: {client['events'].get(name, 0)} events, {f['calls']} calls")
            eb = client["event_function_bytes"].get(name, {"sent": 0, "recv": 0})
            if (eb["sent"], eb["recv"]) != (f["sent"], f["recv"]):
                bad.append(f"{name}: the events carry {eb['sent']}/{eb['recv']} bytes, "
                           f"the snapshots {f['sent']}/{f['recv']}")
        ring = sorted(f"{r}>{(r + 1) % n} tag 7" for r in range(n))
        if client["traffic"].get("MPI_Sendrecv") != ring:
            bad.append(f"MPI_Sendrecv events: {client['traffic'].get('MPI_Sendrecv')}, "
                   f"expected {ring}")
        comms = client["comms"]
        for rank in map(str, range(n)):
            world = comms.get("MPI_Sendrecv", {}).get(rank, [])
            work = comms.get("MPI_Allreduce", {}).get(rank, [])
            if len(world) != 1 or len(work) != 1 or world == work:
                bad.append(f"rank {rank}: MPI_Sendrecv events name communicators {world}, "
                           f"MPI_Allreduce events {work}: expected one each, not the same")
for line in bad:
    print(line)
sys.exit(1 if bad else 0)
