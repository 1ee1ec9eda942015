"""Check the runtime's layering on the built objects (nm), not on includes.

Each runtime source runtime/LAYER/NAME.c is one node; an edge A -> B means
A's object uses a symbol that B's object defines. The rules:

- no dependency cycle between runtime files;
- a file uses only files of its own layer or of a lower one, in the order
  of LAYERS (core is used by everything and uses nothing above it; only
  the life cycle orchestrates; fortran/ is the Fortran library's way in).

Usage: runtime_layers.py SRCDIR BUILDDIR      check the build
       runtime_layers.py --self-test          the checker finds what it must
Prints one TAP line per rule, and every offending edge or cycle.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LAYERS = ("core", "traffic", "monitor", "report", "lifecycle", "fortran")

Graph = dict[str, set[str]]


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


def build_graph(srcdir: Path, builddir: Path) -> Graph:
    """Edges between runtime files, from the objects of every runtime source."""
    defined: dict[str, set[str]] = {}
    used: dict[str, set[str]] = {}
    for source in sorted((srcdir / "runtime").glob("*/*.c")):
        node = f"{source.parent.name}/{source.stem}"
        obj = builddir / "runtime" / source.parent.name / f"{source.stem}.o"
        if not obj.exists():
            raise SystemExit(f"runtime_layers: {obj} is missing: build first")
        defined[node], used[node] = read_symbols(obj)
    owner = {sym: node for node, syms in defined.items() for sym in syms}
    return {node: {owner[s] for s in used[node] if s in owner and owner[s] != node}
            for node in defined}


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


def report(graph: Graph) -> int:
    """Print the TAP lines for graph; the number of failed rules."""
    failed = 0
    print("1..2")
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
    return failed


def self_test() -> int:
    """The checker must see a deliberate cycle and a call up the layers."""
    clean = {"core/a": set(), "core/b": {"core/a"}, "report/r": {"core/b"}}
    cyclic = {"core/a": {"core/b"}, "core/b": {"core/a"}}
    upward = {"core/a": {"report/r"}, "report/r": set()}
    unknown = {"misc/x": set()}
    checks = [
        (not cycles(clean) and not layer_violations(clean), "a layered graph passes"),
        (cycles(cyclic) == [["core/a", "core/b"]], "a two-file cycle is found"),
        (layer_violations(upward) == ["core/a -> report/r: core/ may not use report/"],
         "core using report is refused"),
        (len(layer_violations(unknown)) == 1, "a folder that is not a layer is refused"),
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
    return 1 if report(build_graph(Path(argv[0]), Path(argv[1]))) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
