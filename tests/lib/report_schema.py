#!/usr/bin/python3
"""The report schema check, run on every writer's output.

Usage::

    report_schema.py [--live] FILE...

Two programs write documents in the JSON report's schema: libmpiwatch its
report (runtime/report/json.c) and ``mpiwatch --web`` its state at
/api/state (client/web_state.c). This checks a document against the schema
as docs/report-format.md describes it, written here from the document and
not from the code (as check-shared-facts.sh asks of tests):

- ``schema`` is ``mpiwatch-report/1``; ``program``, ``mpi`` and ``timer``
  are strings; ``ranks`` is a positive integer;
- ``functions``, ``rank_times`` and ``pairs`` are there, with the keys and
  types that both writers share: per function (named ``MPI_...`` or
  ``MPIX_...``) ``calls``, ``time``, ``bytes_sent``, ``bytes_recv`` and
  ``mpi_time``; per rank ``rank`` and ``mpi``; per pair ``from``, ``to``,
  ``bytes`` and ``messages``; every rank a world rank;
- the keys only the report has (``category``, ``min``, ``max``,
  ``rank_time``, ``sizes`` of a function; ``app`` and ``init`` of a rank;
  ``rank_functions``, ``callsites``, ``counters``, ``regions``, ...) have
  their types where they appear; ``rank_functions`` names only functions
  of ``functions`` and has one value per name in each row;
- no top-level key that the document does not list, and no object with
  a key twice (JSON parsers keep one of the two, each its own choice).

``--live`` is for /api/state: the document must also have ``live``, the
object docs/client.md ("The live page") describes (its counts, rates, ranks'
states, calls in progress and, while a call is stuck, ``wait_for``), which a
report must not have. What the state does not claim (sizes, call sites, regions, the run's
command and times) it is not asked for.

Exit status: 0 if every FILE conforms, 1 if one does not (each problem on a
line of standard error, ``FILE: key: what is wrong``), 2 if a FILE cannot be
read or is not JSON. Importable: :func:`check_text` returns the list.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

SCHEMA = "mpiwatch-report/1"
NAME_RE = re.compile(r"^MPIX?_[A-Za-z0-9_]+$")

# The top-level keys docs/report-format.md lists, and the live state's own.
REPORT_KEYS = {"schema", "program", "ranks", "snapshot", "partial", "merged", "mpi", "timer", "fortran_binding_calls",
               "command", "hosts", "library", "start", "end", "build_id", "nodes", "label", "config", "monitor", "trace", "rank_times",
               "app_time", "mpi_time", "init_time", "functions", "callsites", "rank_functions",
               "counters", "pairs", "regions", "waits"}
LIVE_KEYS = {"recording", "elapsed", "watched", "waiting", "attached", "finished", "lost",
             "events_received", "events_dropped", "stuck_after", "rates", "rank_status",
             "inflight", "wait_for"}
RANK_STATUS = {"waiting", "attached", "finished", "lost"}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and v == v


class _Check:
    def __init__(self) -> None:
        self.found: list[str] = []

    def bad(self, where: str, what: str) -> None:
        self.found.append(f"{where}: {what}")

    def typed(self, d: dict, key: str, test, kind: str, where: str, required: bool = True) -> bool:
        """d[key] passes test; absent is a problem when required. True if present and good."""
        if key not in d:
            if required:
                self.bad(f"{where}.{key}" if where else key, "missing")
            return False
        if not test(d[key]):
            self.bad(f"{where}.{key}" if where else key, f"{d[key]!r} is not {kind}")
            return False
        return True

    def counts(self, d: dict, keys: tuple[str, ...], where: str, required: bool = True) -> None:
        for k in keys:
            self.typed(d, k, lambda v: _is_int(v) and v >= 0, "a count (an integer >= 0)", where,
                       required)

    def seconds(self, d: dict, keys: tuple[str, ...], where: str, required: bool = True) -> None:
        for k in keys:
            self.typed(d, k, lambda v: _is_num(v) and v >= 0, "seconds (a number >= 0)", where,
                       required)

    def rank(self, d: dict, key: str, world: int, where: str) -> None:
        self.typed(d, key, lambda v: _is_int(v) and 0 <= v < world,
                   f"a world rank (0 to {world - 1})", where)

    def objects(self, doc: dict, key: str, where: str = "") -> list[tuple[int, dict]]:
        """The list doc[key] (a problem if absent or not a list), its objects with their index."""
        if not self.typed(doc, key, lambda v: isinstance(v, list), "a list", where):
            return []
        out = []
        for i, item in enumerate(doc[key]):
            if isinstance(item, dict):
                out.append((i, item))
            else:
                self.bad(f"{where + '.' if where else ''}{key}[{i}]", f"{item!r} is not an object")
        return out


def _functions(c: _Check, doc: dict, world: int) -> None:
    if not c.typed(doc, "functions", lambda v: isinstance(v, dict), "an object", ""):
        return
    for name, f in doc["functions"].items():
        where = f"functions.{name}"
        if not NAME_RE.match(name):
            c.bad(where, "not an MPI function's name")
        if not isinstance(f, dict):
            c.bad(where, f"{f!r} is not an object")
            continue
        c.counts(f, ("calls", "bytes_sent", "bytes_recv"), where)
        c.seconds(f, ("time",), where)
        c.typed(f, "mpi_time", lambda v: isinstance(v, bool), "true or false", where)
        c.typed(f, "category", lambda v: isinstance(v, str) and v != "", "a category name", where,
                required=False)
        c.seconds(f, ("min", "max"), where, required=False)
        if c.typed(f, "rank_time", lambda v: isinstance(v, dict), "an object", where,
                   required=False):
            rt = f["rank_time"]
            c.seconds(rt, ("min", "mean", "max", "cv"), f"{where}.rank_time")
            for k in ("min_rank", "max_rank"):
                c.rank(rt, k, world, f"{where}.rank_time")
        if c.typed(f, "sizes", lambda v: isinstance(v, list), "a list", where, required=False):
            for i, s in enumerate(f["sizes"]):
                if not (isinstance(s, list) and len(s) == 3 and all(_is_int(x) and x >= 0 for x in s)
                        and s[0] < s[1]):
                    c.bad(f"{where}.sizes[{i}]", f"{s!r} is not [low, high, calls]")


def _rank_functions(c: _Check, doc: dict, world: int) -> None:
    if not c.typed(doc, "rank_functions", lambda v: isinstance(v, dict), "an object", "",
                   required=False):
        return
    rf = doc["rank_functions"]
    if not c.typed(rf, "functions", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
                   "a list of names", "rank_functions"):
        return
    names = rf["functions"]
    known = doc.get("functions") if isinstance(doc.get("functions"), dict) else {}
    for n in names:
        if n not in known:
            c.bad("rank_functions.functions", f"{n!r} is not in functions")
    for i, row in c.objects(rf, "ranks", "rank_functions"):
        where = f"rank_functions.ranks[{i}]"
        c.rank(row, "rank", world, where)
        for k in ("calls", "time", "bytes_sent", "bytes_recv"):
            if c.typed(row, k, lambda v: isinstance(v, list) and all(_is_num(x) and x >= 0 for x in v),
                       "a list of numbers >= 0", where) and len(row[k]) != len(names):
                c.bad(f"{where}.{k}", f"{len(row[k])} values for {len(names)} functions")


def _merged(c: _Check, doc: dict, world: int) -> None:
    """A report merged from partial profiles: each present rank's, the missing ones, in all
    the world."""
    m = doc["merged"]
    c.typed(m, "job", lambda v: isinstance(v, str), "a string", "merged")
    c.typed(m, "missing", lambda v: isinstance(v, list) and all(_is_int(r) and 0 <= r < world
                                                                 for r in v),
            "a list of world ranks", "merged")
    present = []
    for i, r in c.objects(m, "ranks", "merged"):
        c.rank(r, "rank", world, f"merged.ranks[{i}]")
        present.append(r.get("rank"))
        for k in ("reason", "host", "file"):
            c.typed(r, k, lambda v: isinstance(v, str), "a string", f"merged.ranks[{i}]")
        for k in ("taken", "started"):
            c.typed(r, k, _is_int, "seconds since the epoch (an integer)", f"merged.ranks[{i}]")
        c.counts(r, ("pid",), f"merged.ranks[{i}]")
    missing = m.get("missing") if isinstance(m.get("missing"), list) else []
    if sorted(present + missing, key=str) != sorted(range(world), key=str):
        c.bad("merged", f"ranks {present} and missing {missing} are not the world's {world}")
    if len(present) != doc.get("ranks"):
        c.bad("merged.ranks", f"{len(present)} ranks, the report's ranks is {doc.get('ranks')}")
    times = [r.get("rank") for r in doc.get("rank_times", []) if isinstance(r, dict)]
    if times != present:
        c.bad("rank_times", f"ranks {times}, the merged ranks {present}")


def _report_only(c: _Check, doc: dict, world: int) -> None:
    """The keys of the report at MPI_Finalize, typed where they appear."""
    for k in ("command", "hosts", "library", "fortran_binding_calls", "label"):
        c.typed(doc, k, lambda v: isinstance(v, str), "a string", "", required=False)
    c.typed(doc, "build_id", lambda v: isinstance(v, str) and re.match(r"^([0-9a-f]{2})*$", v) is not None,
            "a build-id in hex (or empty)", "", required=False)
    c.typed(doc, "nodes", lambda v: _is_int(v) and 1 <= v <= world, "a node count (1 to ranks)", "",
            required=False)
    for k in ("start", "end"):
        c.typed(doc, k, _is_int, "seconds since the epoch (an integer)", "", required=False)
    for k in ("config", "monitor", "trace", "counters", "regions", "callsites", "snapshot", "partial",
              "merged", "waits"):
        c.typed(doc, k, lambda v: isinstance(v, dict), "an object", "", required=False)
    for k in ("app_time", "mpi_time", "init_time"):
        if c.typed(doc, k, lambda v: isinstance(v, dict), "an object", "", required=False):
            c.seconds(doc[k], ("min", "max", "mean"), k)
            for r in ("min_rank", "max_rank"):
                c.rank(doc[k], r, world, k)
    if isinstance(doc.get("merged"), dict):
        _merged(c, doc, world)
    if isinstance(doc.get("monitor"), dict):
        c.typed(doc["monitor"], "transport", lambda v: v in ("tcp", "mpi", "tcp,mpi"),
                "tcp, mpi or tcp,mpi", "monitor")
        c.counts(doc["monitor"], ("events_sent", "events_dropped", "events_unwatched",
                                  "snapshots_skipped"), "monitor")
    if isinstance(doc.get("trace"), dict):
        c.counts(doc["trace"], ("ranks", "events", "dropped", "bytes"), "trace")
    if isinstance(doc.get("waits"), dict):
        _waits(c, doc["waits"], world)
    if isinstance(doc.get("callsites"), dict):
        for i, s in c.objects(doc["callsites"], "sites", "callsites"):
            c.typed(s, "function", lambda v: isinstance(v, str) and NAME_RE.match(v) is not None,
                    "an MPI function's name", f"callsites.sites[{i}]")
            c.counts(s, ("calls", "bytes_sent", "bytes_recv"), f"callsites.sites[{i}]")


WAIT_PATTERNS = ("late_sender", "late_receiver", "wait_nxn", "wait_barrier", "late_broadcast",
                 "early_reduce")


def _waits(c: _Check, w: dict, world: int) -> None:
    """The wait states at MPI_Finalize (docs/wait-states.md, "JSON")."""
    c.counts(w, ("ranks", "calls", "messages", "unmatched", "unordered_receivers", "collectives",
                 "incomplete_collectives"), "waits")
    c.seconds(w, ("mpi_time", "waiting", "direct", "analysis_seconds"), "waits")
    for k in ("waiting_share", "direct_share"):
        c.typed(w, k, lambda v: _is_num(v) and 0 <= v <= 100.001, "a percentage", "waits")
    c.typed(w, "sites", lambda v: isinstance(v, str), "a string", "waits")
    if c.typed(w, "patterns", lambda v: isinstance(v, dict) and set(v) == set(WAIT_PATTERNS),
               f"an object of {', '.join(WAIT_PATTERNS)}", "waits"):
        for k in WAIT_PATTERNS:
            c.seconds(w["patterns"][k], ("time",), f"waits.patterns.{k}")
            c.counts(w["patterns"][k], ("count",), f"waits.patterns.{k}")
    for k in ("rank_waiting", "rank_caused"):
        c.typed(w, k, lambda v: isinstance(v, list) and len(v) == world and all(_is_num(x) and x >= 0 for x in v),
                f"a list of {world} times", "waits")
    for i, cause in c.objects(w, "causes", "waits"):
        at = f"waits.causes[{i}]"
        c.rank(cause, "rank", world, at)
        c.typed(cause, "pattern", lambda v: v in WAIT_PATTERNS, "a pattern's key", at)
        c.typed(cause, "function", lambda v: isinstance(v, str) and NAME_RE.match(v) is not None,
                "an MPI function's name", at)
        for k in ("site", "address"):
            c.typed(cause, k, lambda v: isinstance(v, str), "a string", at)
        c.typed(cause, "after", lambda v: v is None or (isinstance(v, dict) and
                                                        {"function", "site", "address"} <= set(v)),
                "null or an object with function, site and address", at)
        c.seconds(cause, ("waiting", "direct"), at)
        c.typed(cause, "share", lambda v: _is_num(v) and v >= 0, "a percentage", at)
        c.counts(cause, ("instances", "waiting_ranks"), at)


def _live(c: _Check, doc: dict, world: int) -> None:
    if not c.typed(doc, "live", lambda v: isinstance(v, dict), "an object", ""):
        return
    live = doc["live"]
    for k in sorted(set(live) - LIVE_KEYS):
        c.bad(f"live.{k}", "not a key of the live state (docs/client.md)")
    c.typed(live, "recording", lambda v: isinstance(v, bool), "true or false", "live")
    c.seconds(live, ("elapsed", "stuck_after"), "live")
    c.counts(live, ("watched", "waiting", "attached", "finished", "lost", "events_received",
                    "events_dropped"), "live")
    if c.typed(live, "rates", lambda v: isinstance(v, dict), "an object", "live"):
        for k in ("calls", "mpi_share", "sent", "recv"):
            c.typed(live["rates"], k, lambda v: _is_num(v) and v >= 0, "a rate (a number >= 0)",
                    "live.rates")
    for i, s in c.objects(live, "rank_status", "live"):
        c.rank(s, "rank", world, f"live.rank_status[{i}]")
        c.typed(s, "status", lambda v: v in RANK_STATUS, "/".join(sorted(RANK_STATUS)),
                f"live.rank_status[{i}]")
    for i, call in c.objects(live, "inflight", "live"):
        where = f"live.inflight[{i}]"
        c.rank(call, "rank", world, where)
        c.counts(call, ("thread",), where)
        c.typed(call, "function", lambda v: isinstance(v, str) and NAME_RE.match(v) is not None,
                "an MPI function's name", where)
        c.seconds(call, ("seconds",), where)
        c.typed(call, "stuck", lambda v: isinstance(v, bool), "true or false", where)
    if c.typed(live, "wait_for", lambda v: isinstance(v, dict), "an object", "live",
               required=False):
        w = live["wait_for"]
        ranks = lambda v: isinstance(v, list) and all(_is_int(r) and 0 <= r < world for r in v)
        c.typed(w, "ranks", ranks, "a list of world ranks", "live.wait_for")
        c.typed(w, "cycles", lambda v: isinstance(v, list) and all(ranks(x) for x in v),
                "a list of lists of world ranks", "live.wait_for")
        for i, on in c.objects(w, "waited_on", "live.wait_for"):
            c.rank(on, "rank", world, f"live.wait_for.waited_on[{i}]")
            c.typed(on, "waiters", ranks, "a list of world ranks", f"live.wait_for.waited_on[{i}]")


def problems(doc: Any, live: bool = False) -> list[str]:
    """What in doc does not conform to the schema: ``key: what is wrong`` each."""
    c = _Check()
    if not isinstance(doc, dict):
        return [f"the document is {type(doc).__name__}, not an object"]
    if doc.get("schema") != SCHEMA:
        c.bad("schema", f"{doc.get('schema')!r}, expected {SCHEMA!r}")
    for k in ("program", "mpi", "timer"):
        c.typed(doc, k, lambda v: isinstance(v, str), "a string", "")
    c.typed(doc, "ranks", lambda v: _is_int(v) and v >= 1, "a positive integer", "")
    ranks = doc["ranks"] if _is_int(doc.get("ranks")) and doc["ranks"] >= 1 else 1
    # A snapshot report is one rank's: its ranks are world ranks of world_size.
    snap = doc.get("snapshot") or doc.get("partial") or doc.get("merged")
    world = snap["world_size"] if isinstance(snap, dict) and _is_int(snap.get("world_size")) else ranks
    extra = set(doc) - REPORT_KEYS - ({"live"} if live else set())
    for k in sorted(extra):
        c.bad(k, "not a key of the schema (docs/report-format.md)")
    _functions(c, doc, world)
    for i, r in c.objects(doc, "rank_times"):
        c.rank(r, "rank", world, f"rank_times[{i}]")
        c.seconds(r, ("mpi",), f"rank_times[{i}]")
        c.seconds(r, ("app", "init"), f"rank_times[{i}]", required=False)
    for i, p in c.objects(doc, "pairs"):
        for k in ("from", "to"):
            c.rank(p, k, world, f"pairs[{i}]")
        c.counts(p, ("bytes", "messages"), f"pairs[{i}]")
    _rank_functions(c, doc, world)
    _report_only(c, doc, world)
    if live:
        _live(c, doc, world)
    return c.found


def check_text(text: str, live: bool = False) -> list[str]:
    """problems() of the JSON text, and each key an object has twice.

    Raises ValueError (json.JSONDecodeError) when text is not JSON.
    """
    twice: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict:
        seen: set[str] = set()
        for k, _ in items:
            if k in seen:
                twice.append(f"{k}: twice in one object (in {{{', '.join(sorted(seen))}, ...}})")
            seen.add(k)
        return dict(items)

    return twice + problems(json.loads(text, object_pairs_hook=pairs), live)


def main(argv: list[str]) -> int:
    live = bool(argv) and argv[0] == "--live"
    files = argv[1:] if live else argv
    if not files or any(f.startswith("-") for f in files):
        print("usage: report_schema.py [--live] FILE...", file=sys.stderr)
        return 2
    status = 0
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                found = check_text(f.read(), live)
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            return 2
        for p in found:
            print(f"{path}: {p}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
