"""Check the runtime's layering on the built objects (nm), not on includes.

Each runtime source runtime/LAYER/NAME.c is one node; an edge A -> B means
A's object uses a symbol that B's object defines. The rules:

- no dependency cycle between runtime files;
- a file uses only files of its own layer or of a lower one, in the order
  of LAYERS (core is used by everything and uses nothing above it; only
  the life cycle orchestrates; fortran/ is the Fortran library's way in);
- the wrappers, the layer on top (the generated objects: generated/wrap_*.c,
  mw_functions.c, hook_definitions.c and the Fortran entry points), use of
  the runtime only the symbols of their API, WRAPPER_API, each declared in
  the header it is listed under, and include of the runtime only the API's
  headers, WRAPPER_HEADERS (an inline function leaves no symbol).

Usage: runtime_layers.py SRCDIR BUILDDIR      check the build
       runtime_layers.py --self-test          the checker finds what it must
Prints one TAP line per rule, and every offending edge or cycle.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

LAYERS = ("core", "traffic", "monitor", "trace", "report", "lifecycle", "fortran")

Graph = dict[str, set[str]]

# The wrappers' API: what of the runtime a generated object may use. The
# per-call path is inline code from runtime/mw_wrap.h and the headers it
# includes, which leaves no symbol in an object; what it leaves are the
# out-of-line entry points (rare paths, the life cycle) and the data that
# inline code reads, listed here by the header that declares them. The
# Fortran entry points and fortran_calls.c reach the runtime through
# runtime/fortran/'s headers. A name ending in "*" is a prefix. Anything
# else a wrapper uses of the runtime (a monitor internal, say) fails.
WRAPPER_API: dict[str, tuple[str, ...]] = {
    "runtime/core/call_events.h": ("mw_call_events",),
    "runtime/core/callstacks.h": ("mw_callsite_depth", "mw_callstack_site"),
    "runtime/core/clock.h": ("mw_clock_use_tsc",),
    "runtime/core/handles.h": ("mw_comm_facts_miss", "mw_comm_id", "mw_comm_learn", "mw_comm_seen_learn",
                               "mw_handle_gen",
                               "mw_handles_refresh", "mw_type_size_miss"),
    "runtime/core/mode.h": ("mpiwatch_fortran_mode",),
    "runtime/core/state.h": ("mw_level",),
    "runtime/core/thread_stats.h": ("mw_guard_contended", "mw_site_miss_x86", "mw_thread_attach",
                                    "mw_threads_forget_memos"),
    "runtime/core/tls.h": ("mw_ring_detached", "mw_tls"),
    "runtime/traffic/memo.h": ("mw_memo_prepare", "mw_xfer_failed", "mw_xfer_new_shape"),
    "runtime/traffic/traffic.h": ("mw_bytes", "mw_count_pair_miss", "mw_forget_request",
                                  "mw_note_*", "mw_persist"),
    "runtime/monitor/events.h": ("mw_event_push_times_first", "mw_event_push_traffic_slow"),
    "runtime/trace/call_event.h": ("mw_call_event",),
    "runtime/trace/comm_ids.h": ("mw_trace_comm_created",),
    "runtime/trace/notes.h": ("mw_trace_note_*",),
    "runtime/trace/recorder.h": ("mw_trace_record_general", "mw_trace_self"),
    "runtime/trace/memo_record.h": ("mw_xfer_traced_failed", "mw_xfer_traced_new_shape",
                                    "mw_xfer_traced_record"),
    "runtime/trace/chunks.h": ("mw_trace_recording",),
    "runtime/trace/limits.h": ("mw_trace_limited",),
    "runtime/trace/pending.h": ("mw_trace_pending_tls",),
    "runtime/monitor/inflight.h": ("mw_inflight_on",),
    "runtime/lifecycle/lifecycle.h": ("mw_on_init_args", "mw_init_thread_level",
                                      "mw_init_wants_threads", "mw_init_threaded",
                                      "mw_init_app_level", "mw_on_query_thread", "mw_on_init",
                                      "mw_on_finalize", "mw_on_pcontrol", "mw_on_abort"),
    "runtime/fortran/bridge.h": ("mpiwatch_fortran_*",),
    "runtime/fortran/calls.h": ("mw_f_cache_refresh", "mw_f_comm_miss", "mw_f_type_miss",
                                "mw_fcache", "mw_fortran_stop_clock",
                                "mw_fortran_targets_mismatch"),
    "runtime/fortran/convert.h": ("mw_f_datatype_array", "mw_f_note_sentinel",
                                  "mw_f_request_array", "mw_f_sentinel_addresses"),
    "runtime/fortran/handoff_stubs.h": ("mw_handoff_probe", "mw_handoff_probed"),
}

# The runtime headers a generated source may include: mw_wrap.h (and what
# it includes) for the C wrappers, fortran/'s for the Fortran calls and
# entry points.
WRAPPER_HEADERS = ("runtime/mw_wrap.h", "runtime/fortran/bridge.h", "runtime/fortran/calls.h",
                   "runtime/fortran/convert.h", "runtime/fortran/gate.h",
                   "runtime/fortran/handoff_stubs.h")

# The generated objects of the wrappers' layer (builddir/generated/); the
# Fortran ones exist only when Fortran is built. viewer_page.c is the
# client's, not a wrapper.
WRAPPER_OBJECTS = ("wrap_*.o", "mw_functions.o", "hook_definitions.o", "fortran_*.o")


def read_symbols(obj: Path) -> tuple[set[str], set[str]]:
    """The global symbols an object defines and the ones it uses."""
    out = subprocess.run(["nm", str(obj)], check=True, capture_output=True, text=True).stdout
    defined: set[str] = set()
    used: set[str] = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == "U":
            used.add(fields[1])
        elif len(fields) == 3 and fields[1] in "TDBRVWC":
            defined.add(fields[2])
    return defined, used


def runtime_symbols(srcdir: Path, builddir: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """What each runtime file's object defines and uses, by file (LAYER/NAME)."""
    defined: dict[str, set[str]] = {}
    used: dict[str, set[str]] = {}
    for source in sorted((srcdir / "runtime").glob("*/*.c")):
        node = f"{source.parent.name}/{source.stem}"
        obj = builddir / "runtime" / source.parent.name / f"{source.stem}.o"
        # A file built into a convenience library of its own flags (OTF2's:
        # trace/otf2_collectives.c) has automake's per-library object name.
        others = sorted(obj.parent.glob(f"*_la-{source.stem}.o"))
        if not obj.exists() and others:
            obj = others[0]
        if not obj.exists():
            raise SystemExit(f"runtime_layers: {obj} is missing: build first")
        defined[node], used[node] = read_symbols(obj)
    return defined, used


def owners(defined: dict[str, set[str]]) -> dict[str, str]:
    """The runtime file that defines each symbol."""
    return {sym: node for node, syms in defined.items() for sym in syms}


def build_graph(defined: dict[str, set[str]], used: dict[str, set[str]]) -> Graph:
    """Edges between runtime files."""
    owner = owners(defined)
    return {node: {owner[s] for s in used[node] if s in owner and owner[s] != node}
            for node in defined}


def wrapper_uses(builddir: Path) -> dict[str, set[str]]:
    """The symbols each generated object of the wrappers' layer uses."""
    objects = sorted({obj for pattern in WRAPPER_OBJECTS
                      for obj in (builddir / "generated").glob(pattern)})
    if not any(obj.name.startswith("wrap_") for obj in objects):
        raise SystemExit(f"runtime_layers: no {builddir}/generated/wrap_*.o: build first")
    return {f"generated/{obj.name}": read_symbols(obj)[1] for obj in objects}


def wrapper_sources(builddir: Path) -> dict[str, str]:
    """The text of each generated C source of the wrappers' layer."""
    return {f"generated/{c.name}": c.read_text()
            for pattern in WRAPPER_OBJECTS
            for c in sorted((builddir / "generated").glob(pattern.replace(".o", ".c")))}


def include_violations(sources: dict[str, str], runtime_headers: set[str]) -> list[str]:
    """Runtime headers a generated source includes that are not the API's."""
    found = []
    for name, text in sorted(sources.items()):
        for included in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, flags=re.M):
            header = f"runtime/{included}"
            if header in runtime_headers and header not in WRAPPER_HEADERS:
                found.append(f"{name} includes {included}, which is not a header of the "
                             "wrappers' API (WRAPPER_HEADERS in tests/build/runtime_layers.py)")
    return found


def api_entry(symbol: str, api: dict[str, tuple[str, ...]]) -> str | None:
    """The header whose API entry allows symbol (an exact name before a
    prefix), or None."""
    exact = [header for header, names in api.items() if symbol in names]
    prefixed = [header for header, names in api.items() for name in names
                if name.endswith("*") and symbol.startswith(name[:-1])]
    return (exact + prefixed + [None])[0]


def wrapper_violations(uses: dict[str, set[str]], owner: dict[str, str],
                       api: dict[str, tuple[str, ...]]) -> list[str]:
    """Runtime symbols a wrapper uses that are not in the API."""
    found = []
    for obj, symbols in sorted(uses.items()):
        for symbol in sorted(symbols):
            if symbol in owner and api_entry(symbol, api) is None:
                found.append(f"{obj} uses {symbol} (runtime/{owner[symbol]}.c), which is not in "
                             "the wrappers' API (WRAPPER_API in tests/build/runtime_layers.py)")
    return found


def declared(name: str, header_text: str) -> bool:
    """Does the header's code (its comments left out) name this symbol?"""
    code = re.sub(r"/\*.*?\*/|//[^\n]*", " ", header_text, flags=re.S)
    return re.search(rf"\b{re.escape(name)}\b", code) is not None


def undeclared_api(uses: dict[str, set[str]], owner: dict[str, str],
                   api: dict[str, tuple[str, ...]], read_header) -> list[str]:
    """API names their header does not declare: every exact name, and every
    runtime symbol the wrappers use through a prefix."""
    checked = {(header, name) for header, names in api.items()
               for name in names if not name.endswith("*")}
    checked |= {(api_entry(s, api), s) for symbols in uses.values() for s in symbols
                if s in owner and api_entry(s, api) is not None}
    return [f"{name} is in the wrappers' API under {header}, which does not declare it"
            for header, name in sorted(checked) if not declared(name, read_header(header))]


def layer_violations(graph: Graph) -> list[str]:
    """Edges from a file to a file of a higher layer, or of an unknown one."""
    found = []
    for node, targets in sorted(graph.items()):
        layer = node.split("/")[0]
        if layer not in LAYERS:
            found.append(f"{node}: runtime/{layer}/ is not a layer ({', '.join(LAYERS)})")
            continue
        for target in sorted(targets):
            other = target.split("/")[0]
            if other in LAYERS and LAYERS.index(other) > LAYERS.index(layer):
                found.append(f"{node} -> {target}: {layer}/ may not use {other}/")
    return found


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components with more than one file (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def report(graph: Graph, uses: dict[str, set[str]], owner: dict[str, str], read_header,
           bad_includes: list[str]) -> int:
    """Print the TAP lines for the runtime's graph and the wrappers' uses and
    includes; the number of failed rules."""
    failed = 0
    print("1..5")
    found_cycles = cycles(graph)
    if found_cycles:
        failed += 1
        print("not ok 1 - no dependency cycle between runtime files")
        for component in found_cycles:
            print(f"# cycle: {' <-> '.join(component)}")
    else:
        print(f"ok 1 - no dependency cycle between runtime files ({len(graph)} files)")
    violations = layer_violations(graph)
    if violations:
        failed += 1
        print("not ok 2 - every file uses only its own layer and the ones below")
        for line in violations:
            print(f"# {line}")
    else:
        print(f"ok 2 - every file uses only its own layer and the ones below ({' < '.join(LAYERS)})")
    for number, what, lines, counted in (
            (3, "the wrappers use only the runtime's wrapper API", wrapper_violations(uses, owner, WRAPPER_API),
             f"{len(uses)} generated objects"),
            (4, "every name of the wrapper API is declared in its header",
             undeclared_api(uses, owner, WRAPPER_API, read_header),
             f"{len(WRAPPER_API)} headers"),
            (5, "the wrappers include only the wrapper API's runtime headers", bad_includes,
             ", ".join(h.removeprefix("runtime/") for h in WRAPPER_HEADERS))):
        if lines:
            failed += 1
            print(f"not ok {number} - {what}")
            for line in lines:
                print(f"# {line}")
        else:
            print(f"ok {number} - {what} ({counted})")
    return failed


def self_test() -> int:
    """The checker must see a deliberate cycle and a call up the layers."""
    clean = {"core/a": set(), "core/b": {"core/a"}, "report/r": {"core/b"}}
    cyclic = {"core/a": {"core/b"}, "core/b": {"core/a"}}
    upward = {"core/a": {"report/r"}, "report/r": set()}
    unknown = {"misc/x": set()}
    api = {"runtime/monitor/events.h": ("mw_monitor_event",), "runtime/traffic/traffic.h": ("mw_note_*",)}
    owner = {"mw_monitor_event": "monitor/events", "mw_note_send": "traffic/p2p",
             "mw_monitor_query_thread": "monitor/monitor_options"}
    headers = {"runtime/monitor/events.h": "void mw_monitor_event(int id);",
               "runtime/traffic/traffic.h": "/* mw_note_recv */ void mw_note_send(void);"}
    within = {"generated/wrap_send.o": {"mw_monitor_event", "mw_note_send", "PMPI_Send", "memcpy"}}
    planted = {"generated/wrap_environment.o": {"mw_monitor_event", "mw_monitor_query_thread"}}
    commented = {"generated/wrap_recv.o": {"mw_note_recv"}}
    owner_recv = dict(owner, mw_note_recv="traffic/p2p")
    runtime_headers = {"runtime/mw_wrap.h", "runtime/monitor/monitor.h"}
    api_only = {"generated/wrap_send.c": '#include "mpiwatch.h"\n#include "mw_wrap.h"\n#include "my_hooks.h"\n'}
    internal = {"generated/wrap_send.c": '#include "mw_wrap.h"\n#  include "monitor/monitor.h"\n'}
    checks = [
        (not cycles(clean) and not layer_violations(clean), "a layered graph passes"),
        (cycles(cyclic) == [["core/a", "core/b"]], "a two-file cycle is found"),
        (layer_violations(upward) == ["core/a -> report/r: core/ may not use report/"],
         "core using report is refused"),
        (len(layer_violations(unknown)) == 1, "a folder that is not a layer is refused"),
        (not wrapper_violations(within, owner, api), "a wrapper using only the API passes"),
        (wrapper_violations(planted, owner, api) == [
            "generated/wrap_environment.o uses mw_monitor_query_thread (runtime/monitor/monitor_options.c), "
            "which is not in the wrappers' API (WRAPPER_API in tests/build/runtime_layers.py)"],
         "a wrapper calling a monitor internal is refused, by object and symbol"),
        (not undeclared_api(within, owner, api, headers.get), "the API's names declared in their headers pass"),
        (undeclared_api(commented, owner_recv, api, headers.get) == [
            "mw_note_recv is in the wrappers' API under runtime/traffic/traffic.h, "
            "which does not declare it"],
         "an API name only a comment of its header mentions is refused"),
        (not include_violations(api_only, runtime_headers), "a wrapper including the API's header passes"),
        (include_violations(internal, runtime_headers) == [
            "generated/wrap_send.c includes monitor/monitor.h, which is not a header of the "
            "wrappers' API (WRAPPER_HEADERS in tests/build/runtime_layers.py)"],
         "a wrapper including the monitor's internal header is refused"),
    ]
    print(f"1..{len(checks)}")
    for number, (passed, what) in enumerate(checks, 1):
        print(f"{'ok' if passed else 'not ok'} {number} - {what}")
    return sum(1 for passed, _ in checks if not passed)


def main(argv: list[str]) -> int:
    if argv == ["--self-test"]:
        return 1 if self_test() else 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    srcdir, builddir = Path(argv[0]), Path(argv[1])
    defined, used = runtime_symbols(srcdir, builddir)
    runtime_headers = {path.relative_to(srcdir).as_posix()
                       for path in (srcdir / "runtime").rglob("*.h")}
    failed = report(build_graph(defined, used), wrapper_uses(builddir), owners(defined),
                    lambda header: (srcdir / header).read_text(),
                    include_violations(wrapper_sources(builddir), runtime_headers))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
