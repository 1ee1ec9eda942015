#!/usr/bin/env python3
"""Write a synthetic mpiwatch-report/1 JSON report for N ranks (default 1,024).

Shaped like a real one (docs/report-format.md): rank_times, functions with size
histograms, a rank x function matrix, call sites, regions, and for every rank
its 16 busiest destinations in pairs (a halo exchange with near neighbours,
plus a few far ones), so the viewer sees the sizes a real job of that many
ranks gives. Deterministic: the same N gives the same file.

  synth-report.py [N] [--matrix FILE]

With --matrix, the job is an all-to-all: FILE gets its exact matrix (every
pair of distinct ranks, in the matrix file's format: docs/report-format.md,
"The matrix file"), and the report's pairs are each rank's 16 busiest of it,
as the runtime keeps them.
"""
from __future__ import annotations

import argparse
import json
import random
import struct
import sys

FUNCS = [("MPI_Send", "send"), ("MPI_Recv", "recv"), ("MPI_Isend", "send"), ("MPI_Irecv", "recv"),
         ("MPI_Waitall", "completion"), ("MPI_Allreduce", "collective"), ("MPI_Bcast", "collective"),
         ("MPI_Barrier", "collective"), ("MPI_Alltoall", "collective"), ("MPI_Sendrecv", "sendrecv"),
         ("MPI_Comm_rank", "communicator"), ("MPI_Init", "environment"), ("MPI_Finalize", "environment")]


def stat(values: list[float]) -> dict:
    lo = min(range(len(values)), key=lambda r: values[r])
    hi = max(range(len(values)), key=lambda r: values[r])
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / len(values)
    return {"min": values[lo], "min_rank": lo, "max": values[hi], "max_rank": hi, "mean": mean,
            "cv": round((var ** 0.5) / mean, 6) if mean else 0}


def all_to_all(n: int) -> list[list[tuple[int, int, int]]]:
    """Each rank's row of an all-to-all: (to, bytes, messages), by receiver."""
    return [[(d, 4096 * (1 + (r * 7 + d * 13) % 61), 1 + (r + d) % 50) for d in range(n) if d != r]
            for r in range(n)]


def write_matrix(path: str, rows: list[list[tuple[int, int, int]]]) -> None:
    """rows as a matrix file: magic, rank count, the rows' offsets, the pairs."""
    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row))
    with open(path, "wb") as f:
        f.write(b"MWMATRX1" + struct.pack("<Q", len(rows)))
        f.write(struct.pack("<%dQ" % len(starts), *starts))
        entry = struct.Struct("<IQQ")
        for row in rows:
            f.write(b"".join(entry.pack(*e) for e in row))


def top_pairs(rows: list[list[tuple[int, int, int]]]) -> list[dict]:
    """Each rank's 16 busiest destinations, as the report's pairs."""
    return [{"from": r, "to": d, "bytes": b, "messages": m}
            for r, row in enumerate(rows) for d, b, m in sorted(row, key=lambda e: (-e[1], e[0]))[:16]]


def report(n: int, rows: list[list[tuple[int, int, int]]] | None = None) -> dict:
    rnd = random.Random(n)
    names = [f for f, _ in FUNCS]
    matrix = []
    for r in range(n):
        times = [round(rnd.uniform(0.001, 0.5) * (1 + (r % 7 == 0)), 9) for _ in names]
        times[-1] = 0.0
        calls = [rnd.randint(1, 5000) for _ in names]
        matrix.append({"rank": r, "calls": calls, "time": times,
                       "bytes_sent": [c * 8 for c in calls], "bytes_recv": [c * 8 for c in calls]})
    functions = {}
    for k, (name, cat) in enumerate(FUNCS):
        per_rank = [m["time"][k] for m in matrix]
        rt = stat(per_rank)
        functions[name] = {
            "category": cat, "calls": sum(m["calls"][k] for m in matrix), "time": sum(per_rank),
            "min": 1e-7, "max": 0.01, "rank_time": rt, "mpi_time": name not in ("MPI_Init", "MPI_Finalize"),
            "bytes_sent": sum(m["bytes_sent"][k] for m in matrix),
            "bytes_recv": sum(m["bytes_recv"][k] for m in matrix),
            "sizes": [[1 << b, 1 << (b + 1), rnd.randint(1, 10 ** 6)]
                      for b in range(3, 3 + k % 12)] if cat in ("send", "recv", "collective", "sendrecv") else []}
    pairs = top_pairs(rows) if rows is not None else []
    for r in range(n if rows is None else 0):
        peers = sorted({(r + d) % n for d in (1, -1, 2, -2, 3, -3, 8, -8, 32, -32, 64, -64,
                                              n // 2, n // 3, n // 5, n // 7)} - {r})[:16]
        for p in peers:
            pairs.append({"from": r, "to": p, "bytes": rnd.randint(1, 10 ** 9), "messages": rnd.randint(1, 10 ** 5)})
    pairs.sort(key=lambda p: -p["bytes"])
    rank_times = [{"rank": r, "app": 10.0, "mpi": round(sum(matrix[r]["time"][:-2]), 9), "init": 0.2} for r in range(n)]
    sites = [{"function": names[i % 11], "caller": f"solver_step_{i}", "file": f"src/solver{i % 9}.c",
              "line": 100 + i, "module": "app", "offset": hex(0x1000 + i * 16), "ranks": n,
              "calls": 1000 * n, "time": 0.1 * n, "min": 1e-7, "max": 0.01,
              "rank_time": {"min": 0.01, "min_rank": 3, "mean": 0.1, "max": 0.3, "max_rank": 7, "cv": 0.2},
              "bytes_sent": 8000 * n, "bytes_recv": 8000 * n, "size_ranges": [[8, 16]]} for i in range(200)]
    return {
        "schema": "mpiwatch-report/1", "program": "synthetic<script>alert(1)</script>", "ranks": n,
        "mpi": "synthetic MPI", "timer": "clock_gettime(CLOCK_MONOTONIC)",
        "command": "./synthetic --ranks " + str(n), "hosts": f"node1 ({n} ranks)",
        "library": "synthetic", "start": 1764190000, "end": 1764190010,
        "config": {"outdir": ".", "formats": "json", "level": 1, "timer": "auto", "callsite_depth": 1},
        "rank_times": rank_times,
        "app_time": {"min": 10.0, "min_rank": 0, "max": 10.0, "max_rank": 0, "mean": 10.0},
        "mpi_time": {k: v for k, v in stat([t["mpi"] for t in rank_times]).items() if k != "cv"},
        "init_time": {"min": 0.2, "min_rank": 0, "max": 0.2, "max_rank": 0, "mean": 0.2},
        "functions": functions,
        "callsites": {"resolver": "synthetic", "other_calls": 0, "sites": sites},
        "rank_functions": {"functions": names, "ranks": matrix},
        "pairs": pairs,
        "regions": {"solve": {"ranks": n, "entries": 100 * n, "calls": 5000 * n,
                              "wall": {"sum": 8.0 * n, "max": 8.5}, "mpi": {"sum": 2.0 * n, "max": 3.0}}},
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ranks", nargs="?", type=int, default=1024)
    ap.add_argument("--matrix", help="make the job an all-to-all and write its matrix file here")
    args = ap.parse_args(argv)
    n = args.ranks
    if n < 1:
        print("synth-report.py: the rank count must be at least 1", file=sys.stderr)
        return 2
    rows = all_to_all(n) if args.matrix else None
    if rows is not None:
        write_matrix(args.matrix, rows)
    json.dump(report(n, rows), sys.stdout, separators=(", ", ": "))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
