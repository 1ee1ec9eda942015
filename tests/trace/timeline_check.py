#!/usr/bin/env python3
"""Checks of the timeline page's drawn model (tests/trace/check-timeline.sh).

  timeline_check.py drawn MODEL.json ANALYSIS.json ROWS
      ROWS rows; every matched message drawn as a line between its ranks'
      rows; the waiting spans drawn, each at the pixels of its times, in its
      rank's row, and summed by rank and by pattern equal to --analyze
      --json's rank_waiting and patterns
  timeline_check.py click MODEL.json
      after a click on the first row of the table: the view shows a wait
      state of the largest cause, zoomed onto it
  timeline_check.py gestures GESTURES.json
      a wheel turn (deltaY -300 at x) zooms in around the time under the
      pointer; a drag of 100 px to the right moves the view back in time
  timeline_check.py ranks MODEL.json RANKS
      the rows are exactly RANKS (comma-separated)

MODEL.json is {"drawn": window.mwTimeline.drawn, "data": its data}. The last
line printed says what was checked, or what failed.
"""
from __future__ import annotations

import json
import sys

def x_of(d: dict, t: float) -> float:
    v0, v1 = d["view"]["start"], d["view"]["end"]
    return d["left"] + (t - v0) / (v1 - v0) * (d["width"] - d["left"])


def check_drawn(model: dict, analysis: dict, rows: int) -> str:
    d = model["drawn"]
    if sorted(model["data"]["pattern_keys"]) != sorted(analysis["patterns"]):
        raise AssertionError("the page's pattern keys are not --analyze --json's")
    if len(d["rows"]) != rows:
        raise AssertionError(f"{len(d['rows'])} rows drawn, not {rows}")
    row_y = {r["rank"]: (r["y"], r["y"] + r["height"]) for r in d["rows"]}
    if len({y for y, _ in row_y.values()}) != rows:
        raise AssertionError("two rows at the same height")
    if len(d["messages"]) != analysis["messages"] or not d["messages"]:
        raise AssertionError(f"{len(d['messages'])} message lines drawn, --analyze matched "
                             f"{analysis['messages']}")
    for m in d["messages"]:
        for end in (m["from"], m["to"]):
            lo, hi = row_y[end["rank"]]
            if not lo <= end["y"] <= hi or abs(end["x"] - x_of(d, end["t"])) > 0.5:
                raise AssertionError(f"a message line's end is not at its time and row: {m}")
    keys = model["data"]["pattern_keys"]   # by the page's pattern numbers
    by_rank = [0.0] * analysis["ranks"]
    by_pattern = [0.0] * len(keys)
    for w in d["waits"]:
        lo, hi = row_y[w["rank"]]
        if not lo <= w["y"] <= hi:
            raise AssertionError(f"a waiting span outside its rank's row: {w}")
        if abs(w["x0"] - x_of(d, w["start"])) > 0.5 or abs(w["x1"] - x_of(d, w["end"])) > 0.5:
            raise AssertionError(f"a waiting span not at its times' pixels: {w}")
        by_rank[w["rank"]] += w["end"] - w["start"]
        by_pattern[w["pattern"]] += w["end"] - w["start"]
    tolerance = 1e-6 * (len(d["waits"]) + 1)
    for k, s in enumerate(by_rank):
        if abs(s - analysis["rank_waiting"][k]) > tolerance:
            raise AssertionError(f"rank {k}: {s:.6f} s of waiting drawn, --analyze says "
                                 f"{analysis['rank_waiting'][k]:.6f}")
    for p, s in enumerate(by_pattern):
        if abs(s - analysis["patterns"][keys[p]]["time"]) > tolerance:
            raise AssertionError(f"{keys[p]}: {s:.6f} s drawn, --analyze says "
                                 f"{analysis['patterns'][keys[p]]['time']:.6f}")
    waited = [k for k, s in enumerate(by_rank) if s > 0]
    return (f"{rows} rows, {len(d['messages'])} message lines, {len(d['waits'])} waiting spans "
            f"(ranks {waited}: {sum(by_rank):.6f} s) at the pixels and sums of the analysis")


def check_click(model: dict) -> str:
    d, data = model["drawn"], model["data"]
    f = d["focus"]
    if f < 0:
        raise AssertionError("no wait state chosen after the click")
    rank, start, end, pattern, late, cause = data["waits"][f]
    if cause != 0:
        raise AssertionError(f"the wait state shown is of cause {cause}, not of the first row's")
    v0, v1 = d["view"]["start"], d["view"]["end"]
    whole = data["window"][1] - data["window"][0]
    if not (v0 <= start and end <= v1 and v1 - v0 <= 3.01 * max(end - start, 1e-6)):
        raise AssertionError(f"the view {v0:.6f}..{v1:.6f} is not zoomed onto the wait state "
                             f"{start:.6f}..{end:.6f}")
    if not any(w["index"] == f for w in d["waits"]):
        raise AssertionError("the chosen wait state was not drawn")
    return (f"the first row's click shows rank {rank}'s wait for rank {late} at "
            f"{start:.6f}..{end:.6f} s: the view {v0:.6f}..{v1:.6f} of {whole:.6f} s")


def check_gestures(g: dict) -> str:
    def t_at(view: list[float], x: float) -> float:
        return view[0] + (x - g["left"]) / (g["width"] - g["left"]) * (view[1] - view[0])
    before, zoomed, panned = g["before"], g["zoomed"], g["panned"]
    factor = (zoomed[1] - zoomed[0]) / (before[1] - before[0])
    if not 0.5 < factor < 0.8:
        raise AssertionError(f"the wheel changed the span by {factor:.3f}, not about 0.64")
    if abs(t_at(before, g["x"]) - t_at(zoomed, g["x"])) > 1e-9 * max(1.0, before[1]):
        raise AssertionError("the time under the pointer moved while zooming")
    shift = 100 / (g["width"] - g["left"]) * (zoomed[1] - zoomed[0])
    if abs((zoomed[0] - panned[0]) - shift) > 1e-9 or abs((zoomed[1] - panned[1]) - shift) > 1e-9:
        raise AssertionError(f"the drag moved the view by {zoomed[0] - panned[0]:.9f} s, not "
                             f"{shift:.9f}")
    return (f"the wheel zooms to {factor:.3f} of the span around the pointer, a drag of 100 px "
            f"pans by {shift * 1e3:.3f} ms")


def main(argv: list[str]) -> int:
    try:
        model = json.load(open(argv[1]))
        if argv[0] == "drawn":
            said = check_drawn(model, json.load(open(argv[2])), int(argv[3]))
        elif argv[0] == "gestures":
            said = check_gestures(model)
        elif argv[0] == "click":
            said = check_click(model)
        elif argv[0] == "ranks":
            got = [r["rank"] for r in model["drawn"]["rows"]]
            want = [int(k) for k in argv[2].split(",")]
            if got != want:
                raise AssertionError(f"rows {got}, not {want}")
            said = f"rows {got}"
        else:
            raise AssertionError(f"unknown check {argv[0]}")
    except (AssertionError, OSError, ValueError, KeyError, IndexError, TypeError) as e:
        print(f"FAILED: {e}")
        return 1
    print(said)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
