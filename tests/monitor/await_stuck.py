#!/usr/bin/env python3
"""Follow an mpiwatch --json output file until a "stuck" line meets conditions.

usage: await_stuck.py FILE LIMIT CONDITIONS

CONDITIONS: one Python expression a line, over `s` (the stuck line, a dict)
and `inflight` ({rank: that rank's latest "inflight" line}). Prints the
seconds it took and exits 0 once a stuck line makes every condition true;
exits 1, saying what it saw last, when LIMIT seconds pass first. For tests.
"""
import json
import sys
import time


def main() -> None:
    path, limit = sys.argv[1], float(sys.argv[2])
    conditions = [c.strip() for c in sys.argv[3].strip().splitlines() if c.strip()]
    start = time.monotonic()
    inflight, last, pending = {}, None, ""
    with open(path, encoding="utf-8") as f:
        while time.monotonic() - start < limit:
            chunk = f.readline()
            if not chunk:
                time.sleep(0.05)
                continue
            pending += chunk
            if not pending.endswith("\n"):
                continue
            line, pending = pending, ""
            d = json.loads(line)
            if d.get("type") == "inflight":
                inflight[d["rank"]] = d
            elif d.get("type") == "stuck":
                last = d
                try:
                    ok = all(eval(c, {}, {"s": d, "inflight": inflight}) for c in conditions)
                except (KeyError, IndexError, TypeError):
                    ok = False
                if ok:
                    print(f"{time.monotonic() - start:.2f}")
                    return
    sys.exit(f"no stuck line as expected within {limit:g} s; the last: {json.dumps(last)[:1500]}\n"
             f"calls in progress ({len(inflight)} ranks): {json.dumps(inflight)[:1500]}")


if __name__ == "__main__":
    main()
