#!/usr/bin/env python3
"""Write partial profiles (docs/partial-reports.md) of some ranks of one job.

  partial-profiles.py DIR WORLD RANK...

DIR gets one NAME-rankR-partial.json per RANK, of a job of WORLD ranks: the
keys `mpiwatch --merge` reads, with one function (MPI_Allreduce) whose time
grows with the rank, so rank order by MPI time is the rank order.
Deterministic: the same arguments give the same files.
"""
from __future__ import annotations

import json
import os
import sys


def profile(rank: int, world: int) -> dict:
    mpi = 0.001 * (rank + 1)
    return {
        "schema": "mpiwatch-report/1", "program": "big", "mpi": "synthetic MPI",
        "timer": "clock_gettime(CLOCK_MONOTONIC)",
        "partial": {"rank": rank, "world_size": world, "reason": "SIGTERM",
                    "taken": 1764190000 + rank % 7, "started": 1764189990, "job": "4242",
                    "host": "node%d" % (rank // 32), "pid": 1000 + rank},
        "functions": {"MPI_Allreduce": {"calls": 10 + rank, "time": mpi, "min": 1e-6, "max": 1e-3,
                                        "bytes_sent": 8, "bytes_recv": 8}},
        "pairs": [],
        "rank_times": [{"rank": rank, "app": 10.0, "mpi": mpi, "init": 0.1}],
    }


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.split("\n")[2].strip(), file=sys.stderr)
        return 2
    folder, world, ranks = argv[0], int(argv[1]), [int(r) for r in argv[2:]]
    os.makedirs(folder, exist_ok=True)
    for rank in ranks:
        path = os.path.join(folder, "mpiwatch-big-%dr-job4242-rank%d-partial.json" % (world, rank))
        with open(path, "w", encoding="utf-8") as f:
            json.dump(profile(rank, world), f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
