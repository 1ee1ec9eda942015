#!/usr/bin/env python3
"""Checks of an OTF2 archive that `mpiwatch --trace DIR --otf2 OUT` wrote,
read with Debian's python3-otf2 (independent of mpiwatch's writer), against
the run's JSON report. Usage: otf2_check.py ARCHIVE.otf2 REPORT.json

It finds, exactly, or prints what differs and exits 1:
- per function, as many calls as the report (Enter events of the function's
  region; a record of folded polls counts its mpiwatch::calls attribute);
- per (sender, receiver), the bytes and messages of the report's matrix
  (MpiSend and MpiIsend events), their peers being ranks within the event's
  communicator, turned into world ranks through its group;
- every message's and collective's rank a member of its communicator, and
  on each communicator the same sequence of collectives and roots (as
  world ranks) on every member that called them;
- every receive (MpiRecv, MpiIrecv) matched to exactly one send and every
  send to one receive, in MPI's non-overtaking order per (communicator,
  sender, receiver, tag): the k-th send to the k-th receive in the order
  they were posted (an MpiIrecv's from its MpiIrecvRequest);
- every matched send entered before its receive's call left;
- per location, times never decrease;
- every MpiIsend completed by one MpiIsendComplete of its rank, every
  MpiIrecvRequest by one MpiIrecv;
- per named region of the program (a USER region), as many entries as the
  report's, each Leave closing its location's innermost region, none left
  open; and says the MPI_Pcontrol levels (the parameter "MPI_Pcontrol
  level") when every location set the same ones.
"""
import json
import sys
from collections import Counter, defaultdict

import otf2

WORLD_GROUP = "MPI_COMM_WORLD ranks"      # the group of a communicator known by handle
NO_COMM = "communicator not recorded"     # the communicator of calls that named none


def world_rank(location):
    """The world rank of a location (its location group is "rank R")."""
    return int(location.group.name.split()[-1])


def world_of(comm, rank):
    """A rank within comm (an event's peer or root) as a world rank; None
    when comm has no such rank."""
    if comm is None:
        return rank
    members = comm.group.members
    return world_rank(members[rank]) if 0 <= rank < len(members) else None


def members_of(comm):
    return {world_rank(m) for m in comm.group.members} if comm is not None else None


def check(archive, report):
    problems = []
    calls, pairs = Counter(), Counter()
    sends, recvs = defaultdict(list), defaultdict(list)
    last_time = {}
    open_enter = {}            # location -> time of the Enter of the call in progress
    pending = defaultdict(dict)   # rank -> request id -> (kind, posted time)
    leave_of = []              # receives waiting for their call's Leave: (location, entry)
    collectives = defaultdict(lambda: defaultdict(list))   # comm -> rank -> [(op, root)]
    groups = set()             # the communicators' own groups, as world ranks
    entries = Counter()        # named regions: Enter events
    levels = defaultdict(list)  # location -> its MPI_Pcontrol levels, in order
    open_regions = defaultdict(list)   # location -> the named regions open, innermost last

    def on_comm(event, rank, peer, what):
        """peer (a rank of the event's communicator) as a world rank, after
        checking that rank is a member; None when either is not."""
        comm = event.communicator
        if comm is not None and comm.group.name != WORLD_GROUP:
            groups.add(tuple(world_rank(m) for m in comm.group.members))
        if comm is not None and rank not in members_of(comm):
            problems.append(f"rank {rank}: {what} on {comm.name}, of which it is no member")
            return None
        world = world_of(comm, peer)
        if world is None:
            problems.append(f"rank {rank}: {what} names rank {peer} of {comm.name}, "
                            f"which has {len(comm.group.members)}")
        return world
    with otf2.reader.open(archive) as trace:
        for location, event in trace.events:
            name = type(event).__name__
            rank = int(location.group.name.split()[-1])
            if event.time < last_time.get(location, 0):
                problems.append(f"{location.name}: time {event.time} after "
                                f"{last_time[location]}")
            last_time[location] = event.time
            if name == "ParameterInt" and event.parameter.name == "MPI_Pcontrol level":
                levels[location.name].append(event.value)
            user = name in ("Enter", "Leave") and event.region.paradigm == otf2.Paradigm.USER
            if user and name == "Enter":
                entries[event.region.name] += 1
                open_regions[location].append(event.region.name)
            elif user:
                if not open_regions[location] or \
                        open_regions[location][-1] != event.region.name:
                    problems.append(f"{location.name}: Leave of region {event.region.name}, "
                                    f"innermost open {open_regions[location][-1:]}")
                else:
                    open_regions[location].pop()
            elif name == "Enter":
                count = 1
                for attribute, value in (event.attributes or {}).items():
                    if attribute.name == "mpiwatch::calls":
                        count = value
                calls[event.region.name] += count
                open_enter[location] = event.time
            elif name == "Leave":
                for loc, entry in [x for x in leave_of if x[0] == location]:
                    entry["left"] = event.time
                leave_of = [x for x in leave_of if x[0] != location]
            elif name in ("MpiSend", "MpiIsend"):
                comm = event.communicator.name if event.communicator else None
                receiver = on_comm(event, rank, event.receiver, name)
                pairs[(rank, receiver)] += 1
                pairs[("bytes", rank, receiver)] += event.msg_length
                sends[(comm, rank, receiver, event.msg_tag)].append(
                    {"entered": open_enter[location], "rank": rank})
                if name == "MpiIsend":
                    if event.request_id in pending[rank]:
                        problems.append(f"rank {rank}: request {event.request_id} started twice")
                    pending[rank][event.request_id] = ("send", event.time)
            elif name == "MpiIsendComplete":
                if pending[rank].pop(event.request_id, ("", 0))[0] != "send":
                    problems.append(f"rank {rank}: MpiIsendComplete of request "
                                    f"{event.request_id}, which no MpiIsend started")
            elif name == "MpiIrecvRequest":
                pending[rank][event.request_id] = ("recv", event.time)
            elif name in ("MpiRecv", "MpiIrecv"):
                posted = open_enter[location]
                if name == "MpiIrecv":
                    kind, posted = pending[rank].pop(event.request_id, ("", 0))
                    if kind != "recv":
                        problems.append(f"rank {rank}: MpiIrecv of request {event.request_id}, "
                                        "which no MpiIrecvRequest started")
                comm = event.communicator.name if event.communicator else None
                entry = {"posted": posted, "left": None, "rank": rank}
                sender = on_comm(event, rank, event.sender, name)
                recvs[(comm, sender, rank, event.msg_tag)].append(entry)
                leave_of.append((location, entry))
            elif name == "MpiCollectiveEnd" and event.communicator is not None and \
                    event.communicator.name != NO_COMM:
                undefined = event.root == 2**32 - 1
                root = None if undefined else on_comm(event, rank, event.root, name)
                collectives[event.communicator.name][rank].append(
                    (str(event.collective_op), root))
    for rank, left in pending.items():
        for request, (kind, _) in left.items():
            problems.append(f"rank {rank}: {kind} request {request} never completed")
    for location, left in open_regions.items():
        if left:
            problems.append(f"{location.name}: regions {left} never left")
    want_entries = Counter({n: r["entries"] for n, r in report.get("regions", {}).items()})
    if +entries != +want_entries:
        problems.append(f"named regions: report {dict(want_entries)}, archive {dict(entries)}")
    want = Counter({n: f["calls"] for n, f in report["functions"].items() if f["calls"]})
    if +calls != want:
        for n in sorted(set(want) | set(calls)):
            if want[n] != calls[n]:
                problems.append(f"{n}: report {want[n]} calls, archive {calls[n]}")
    want_pairs = Counter()
    for p in report.get("pairs", []):
        want_pairs[(p["from"], p["to"])] += p["messages"]
        want_pairs[("bytes", p["from"], p["to"])] += p["bytes"]
    if +pairs != +want_pairs:
        problems.append(f"matrix: report {sorted((+want_pairs).items())[:6]}..., "
                        f"archive {sorted((+pairs).items())[:6]}...")
    matched = 0
    for channel in set(sends) | set(recvs):
        s = sends.get(channel, [])
        r = sorted(recvs.get(channel, []), key=lambda e: e["posted"])
        if len(s) != len(r):
            problems.append(f"channel (comm, from, to, tag) {channel}: {len(s)} sends, "
                            f"{len(r)} receives")
            continue
        for send, recv in zip(sorted(s, key=lambda e: e["entered"]), r):
            matched += 1
            if recv["left"] is None or send["entered"] > recv["left"]:
                problems.append(f"channel {channel}: a send entered at {send['entered']}, "
                                f"after its receive left at {recv['left']}")
    agreed = 0
    for comm, by_rank in collectives.items():
        first, *others = sorted(by_rank.items())
        for rank, sequence in others:
            if sequence != first[1]:
                problems.append(f"{comm}: rank {rank}'s collectives (op, world root) "
                                f"{sequence[:4]}..., rank {first[0]}'s {first[1][:4]}...")
        agreed += len(first[1])
    for p in problems[:12]:
        print(p)
    if not problems:
        print(f"{sum(calls.values())} calls of {len(calls)} functions as the report, "
              f"{matched} messages matched send to receive, the report's matrix, "
              f"every request completed, times in order; {agreed} collectives alike on "
              f"their communicators' members; own groups (world ranks): "
              f"{' '.join(str(list(g)) for g in sorted(groups)) or 'none'}"
              + (f"; named regions entered as the report: {dict(entries)}" if entries else "")
              + (f"; MPI_Pcontrol levels on every location: "
                 f"{','.join(str(v) for v in next(iter(levels.values())))}"
                 if levels and len({tuple(v) for v in levels.values()}) == 1 else ""))
    return 1 if problems else 0


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    return check(argv[0], json.load(open(argv[1], encoding="utf-8")))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
