#!/usr/bin/env python3
"""Check the exact matrix a page holds against the matrix file's pairs.

  page_matrix_check.py PAGE PAIRS

PAGE is an HTML report written by `mpiwatch --report NAME.json --html` with
NAME.matrix beside the report; PAIRS is `mpiwatch --matrix-file NAME.matrix`
without its header line ("FROM TO BYTES MESSAGES" lines). The page's
exact_matrix (docs/report-format.md, "The exact matrix in the page") must
have blocks of ceil(P / 256) ranks, each cell the sums of its pairs, and
list the pairs of whole blocks, busiest first while they fit in 65,536.
Prints one line saying what was checked; exit status 1 with what differs.
"""
from __future__ import annotations

import json
import re
import sys

LIMIT = 65536


def main(argv: list[str]) -> int:
    page = open(argv[0], encoding="utf-8").read()
    found = re.search(r'<script id="mw-data" type="application/json">(.*?)</script>', page, re.S)
    if not found:
        print("page_matrix_check: the page holds no report", file=sys.stderr)
        return 1
    x = json.loads(found.group(1))["exact_matrix"]
    pairs = [tuple(map(int, line.split())) for line in open(argv[1], encoding="utf-8")]
    ranks = x["ranks"]
    block = -(-ranks // 256)
    side = -(-ranks // block)
    sums: dict[tuple[int, int], list[int]] = {}
    for f, t, b, m in pairs:
        s = sums.setdefault((f // block, t // block), [0, 0, 0])
        s[0] += b
        s[1] += m
        s[2] += 1
    problems = []
    if (x["block"], x["side"], x["pairs"]) != (block, side, len(pairs)):
        problems.append(f"block {x['block']}, side {x['side']}, pairs {x['pairs']}: expected "
                        f"{block}, {side}, {len(pairs)}")
    cells = x["cells"]
    got = {(cells[i], cells[i + 1]): cells[i + 2:i + 5] for i in range(0, len(cells), 6)}
    flagged = {(cells[i], cells[i + 1]) for i in range(0, len(cells), 6) if cells[i + 5] == 1}
    if got != sums:
        problems.append(f"{sum(1 for k in set(got) | set(sums) if got.get(k) != sums.get(k))} "
                        "cells differ from the file's sums")
    # Busiest blocks first (ties: row, then column), whole, while they fit.
    room, want = LIMIT, set()
    for key in sorted(sums, key=lambda k: (-sums[k][0], k)):
        if sums[key][2] <= room:
            want.add(key)
            room -= sums[key][2]
    if flagged != want:
        problems.append(f"{len(flagged ^ want)} blocks listed or not against the rule")
    listed = x["pairs_listed"]
    page_pairs = [tuple(listed[i:i + 4]) for i in range(0, len(listed), 4)]
    file_pairs = [p for p in pairs if (p[0] // block, p[1] // block) in want]
    if page_pairs != file_pairs or x["listed"] != len(file_pairs) or len(file_pairs) > LIMIT:
        problems.append(f"{len(page_pairs)} pairs listed ({x['listed']} said), expected the "
                        f"{len(file_pairs)} of the listed blocks, by sender then receiver")
    if problems:
        print("page_matrix_check: " + "; ".join(problems), file=sys.stderr)
        return 1
    print(f"{len(sums)} blocks of {block} ranks, each the sums of its pairs; the {len(file_pairs)} "
          f"pairs of the {len(want)} busiest blocks listed, as the file has them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
