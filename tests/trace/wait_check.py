#!/usr/bin/env python3
"""Checks `mpiwatch --trace DIR --analyze --json` output (docs/wait-states.md)
for tests/trace/check-wait-states.sh. Where a JSON is named, the JSON report
written at MPI_Finalize may be given instead: its "waits" is checked.

  wait_check.py cause JSON PATTERN RANK FILE LINE PREV SLEPT WAITED BEHIND WAITERS D
      the largest cause is RANK arriving late at FILE:LINE after FILE:PREV,
      of PATTERN; its waiting is within 10% of WAITED, the waiting the
      program measured on its own clock (tests/trace/delays.c says how);
      printed beside it: the issue's D (ms) x 10 iterations x WAITERS (the
      ranks that wait), and what the machine added to it: the delaying
      rank's oversleep (SLEPT, its measured sleep in all, less D x 10) x
      WAITERS, and BEHIND, how much later the waiting ranks began their
      iterations (WAITED = WAITERS x SLEPT - BEHIND, docs/wait-states.md)
  wait_check.py share JSON MAX
      the waiting is less than MAX percent of the MPI time
  wait_check.py paced JSON WAITED IN_CALL
      a balanced program paced to one clock (delays.c balanced-paced): the
      Wait at N x N found is within 10% (or 0.5% of the MPI time) of WAITED,
      what the program measured on its own clock of IN_CALL seconds in its
      MPI_Allreduce calls; and where that is under 5% of IN_CALL (the ranks
      did arrive together), all the waiting found is under 5% of the MPI time
  wait_check.py direct JSON MAX
      the direct waiting (explained by the late ranks' extra work, not
      propagated from a previous MPI call they left late) is less than MAX
      percent of the MPI time
  wait_check.py same REPORT ANALYSIS
      the report's section at MPI_Finalize found what --analyze found: the
      same totals, patterns and causes (rank, pattern, function, sites:
      file:line where --analyze names them) to within 1e-6 s or 1e-6 of
      their size; prints the analysis's time at MPI_Finalize
  wait_check.py damaged CLIENT N FILE...
      N copies of the run's files, each with one file damaged (bytes
      changed, cut, a run repeated), analysed (--analyze --json): exit 0 or
      1, never a crash, and JSON that parses when the exit is 0

Prints the figures on success (the last line) or what differs (status 1).
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile


def load(path):
    with open(path, encoding="utf-8") as f:
        a = json.load(f)
    return a["waits"] if "schema" in a else a


def close(x, y):
    return abs(x - y) <= 1e-6 * max(1.0, abs(x), abs(y))


def is_address(site):
    return site.startswith("0x")


def direct(path, limit):
    a = load(path)
    if a["direct_share"] >= float(limit):
        return (f"direct waiting {a['direct']:.6f} s is {a['direct_share']:.1f}% of the MPI time "
                f"{a['mpi_time']:.6f} s, not under {limit}%")
    print(f"direct waiting {a['direct']:.6f} s of MPI time {a['mpi_time']:.6f} s: "
          f"{a['direct_share']:.1f}% (all waiting: {a['waiting_share']:.1f}%)")
    return None


def same(report, analysis):
    r, a = load(report), load(analysis)
    for key in ("ranks", "calls", "messages", "collectives", "unmatched",
                "unordered_receivers", "incomplete_collectives"):
        if r[key] != a[key]:
            return f"{key}: {r[key]} at MPI_Finalize, {a[key]} by --analyze"
    for key in ("mpi_time", "waiting", "direct"):
        if not close(r[key], a[key]):
            return f"{key}: {r[key]:.9f} s at MPI_Finalize, {a[key]:.9f} s by --analyze"
    for k, p in a["patterns"].items():
        if r["patterns"][k]["count"] != p["count"] or not close(r["patterns"][k]["time"], p["time"]):
            return f"{k}: {r['patterns'][k]} at MPI_Finalize, {p} by --analyze"
    if len(r["causes"]) != len(a["causes"]):
        return f"{len(r['causes'])} causes at MPI_Finalize, {len(a['causes'])} by --analyze"

    def key(c):
        after = c["after"] or {"function": "", "site": ""}
        sites = (c["site"], after["site"])
        return (c["rank"], c["pattern"], c["function"], after["function"], c["instances"],
                c["waiting_ranks"], round(c["waiting"], 6)) + sites
    for x, y in zip(sorted(r["causes"], key=key), sorted(a["causes"], key=key)):
        if key(x)[:6] != key(y)[:6] or not close(x["waiting"], y["waiting"]):
            return f"cause {key(x)} at MPI_Finalize, {key(y)} by --analyze"
        for got, want in zip(key(x)[7:], key(y)[7:]):
            if want and not is_address(want) and got != want:
                return f"site {got} at MPI_Finalize, {want} by --analyze"
    print(f"the same {len(a['causes'])} causes and totals; analysed at MPI_Finalize in "
          f"{r['analysis_seconds']:.3f} s")
    return None


ITERATIONS = 10  # tests/trace/delays.c's


def cause(path, pattern, rank, file, line, prev, slept, waited, behind, waiters, d_ms):
    a = load(path)
    if not a["causes"]:
        return f"no cause at all; waiting {a['waiting']:.6f} s"
    c = a["causes"][0]
    site, after = f"{file}:{line}", f"{file}:{prev}"
    got_after = c["after"]["site"] if c["after"] else "(none)"
    if (c["pattern"], c["rank"], c["site"], got_after) != (pattern, int(rank), site, after):
        return (f"largest cause: {c['pattern']} rank {c['rank']} at {c['site']} after "
                f"{got_after}; expected {pattern} rank {rank} at {site} after {after}")
    measured, n = float(waited), int(waiters)
    issue = float(d_ms) / 1e3 * ITERATIONS * n
    oversleep = (float(slept) - float(d_ms) / 1e3 * ITERATIONS) * n
    figures = (f"waiting {c['waiting']:.6f} s; the program measured {measured:.6f} s "
               f"({100 * (c['waiting'] / measured - 1):+.1f}%); D x {ITERATIONS} x {n} = "
               f"{issue:.6f} s ({100 * (c['waiting'] / issue - 1):+.1f}%), to which the "
               f"machine added {oversleep:+.6f} s of oversleep and {-float(behind):+.6f} s "
               f"of the waiting ranks beginning late")
    if abs(c["waiting"] - measured) > 0.1 * measured:
        return f"{pattern}: not within 10%: {figures}"
    print(f"{pattern} rank {rank} at {site} after {after}: {figures}")
    return None


def share(path, limit):
    a = load(path)
    if a["waiting_share"] >= float(limit):
        return (f"waiting {a['waiting']:.6f} s is {a['waiting_share']:.1f}% of the MPI time "
                f"{a['mpi_time']:.6f} s, not under {limit}%")
    by_pattern = ", ".join(f"{k} {p['time']:.6f} s" for k, p in a["patterns"].items()
                           if p["count"])
    print(f"waiting {a['waiting']:.6f} s of MPI time {a['mpi_time']:.6f} s: "
          f"{a['waiting_share']:.1f}% ({by_pattern or 'none'})")
    return None


def paced(path, waited, in_call):
    a = load(path)
    waited, in_call = float(waited), float(in_call)
    nxn = a["patterns"].get("wait_nxn", {}).get("time", 0.0)
    if abs(nxn - waited) > max(0.1 * waited, 0.005 * a["mpi_time"]):
        return (f"Wait at N x N {nxn:.6f} s, but the program measured {waited:.6f} s on its "
                f"own clock")
    own = 100 * waited / in_call if in_call > 0 else 0.0
    if own < 5 and a["waiting_share"] >= 5:
        return (f"the ranks arrived together (the program measured {own:.1f}% waiting), but "
                f"the analysis found {a['waiting_share']:.1f}% of the MPI time waiting")
    verdict = ("under 5%" if a["waiting_share"] < 5 else
               "the machine made the ranks arrive apart: not judged against 5%")
    print(f"waiting {a['waiting']:.6f} s of MPI time {a['mpi_time']:.6f} s: "
          f"{a['waiting_share']:.1f}% ({verdict}); Wait at N x N {nxn:.6f} s, the program "
          f"measured {waited:.6f} s ({own:.1f}% of its {in_call:.6f} s in the calls)")
    return None


def damaged(client, count, *files):
    rng = random.Random(30)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(int(count)):
            for f in files:
                shutil.copy(f, tmp)
            victim = os.path.join(tmp, os.path.basename(rng.choice(files)))
            bad = bytearray(open(victim, "rb").read())
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
            open(victim, "wb").write(bad)
            run = subprocess.run([client, "--quiet", "--trace", tmp, "--analyze", "--json"],
                                 capture_output=True, timeout=60, check=False)
            if run.returncode not in (0, 1):
                problems.append(f"copy {i}: exit {run.returncode}: {run.stderr[-300:]!r}")
            elif run.returncode == 0:
                try:
                    json.loads(run.stdout)
                except ValueError as err:
                    problems.append(f"copy {i}: the JSON does not parse: {err}")
    if problems:
        return "; ".join(problems[:5])
    print(f"{count} runs with a damaged file analysed without a crash")
    return None


def main(argv):
    checks = {"cause": (cause, 11), "share": (share, 2), "same": (same, 2), "direct": (direct, 2), "paced": (paced, 3), "damaged": (damaged, None)}
    if (len(argv) < 2 or argv[1] not in checks or
            (checks[argv[1]][1] is not None and len(argv) - 2 != checks[argv[1]][1]) or
            (checks[argv[1]][1] is None and len(argv) < 5)):
        print(__doc__)
        return 2
    try:
        problem = checks[argv[1]][0](*argv[2:])
    except (OSError, ValueError, KeyError, TypeError, IndexError) as err:
        problem = f"cannot read {argv[2]}: {err!r}"
    if problem:
        print(problem)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
