#!/usr/bin/env python3
"""Hostile connections, then the real client, for tests of the rank side.

Reads a port file (waiting for it), opens --silent connections to every rank
that never send anything and --garbage connections that send a wrong line,
then connects to every rank with its token (the handshake of
docs/protocol.md: "MPIWATCH 1 TOKEN\\n") and measures how long each takes to
send its first bytes (its HELLO); with --no-read S it first reads nothing
for S seconds, as a stopped client would. Reads every stream to its end, closes the
silent connections, and prints one JSON object: {"ranks": N, "hello_s":
[seconds per rank, null when none came], "bytes": [per rank], "unconnected":
hostile connections that could not even be made}.
Standard library only.
"""
import argparse
import json
import selectors
import socket
import sys
import time


def read_port_file(path, deadline):
    while time.time() < deadline:
        try:
            lines = [l.split() for l in open(path) if l.strip()]
            if lines and len(lines) == int(lines[0][3]):
                return [(l[5], int(l[6]), l[7]) for l in lines]
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.1)
    sys.exit(f"flood.py: no complete port file {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port_file")
    ap.add_argument("--silent", type=int, default=20)
    ap.add_argument("--garbage", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--no-read", type=float, default=0,
                    help="after the handshake, read nothing for this many seconds")
    a = ap.parse_args()
    deadline = time.time() + a.timeout
    ranks = read_port_file(a.port_file, deadline)
    held, unconnected = [], 0
    for host, port, _ in ranks:
        for k in range(a.silent + a.garbage):
            try:
                s = socket.create_connection((host, port), timeout=5)
                if k >= a.silent:
                    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
                held.append(s)
            except OSError:
                unconnected += 1     # a full backlog: the rank is not keeping up
    sel = selectors.DefaultSelector()
    start, hello, got = {}, [None] * len(ranks), [0] * len(ranks)
    open_ = 0
    clients = []
    for r, (host, port, token) in enumerate(ranks):
        start[r] = time.time()
        try:
            s = socket.create_connection((host, port), timeout=5)
            s.sendall(f"MPIWATCH 1 {token}\n".encode())
        except OSError:
            continue
        clients.append((s, r))
    if a.no_read:
        # A client stopped (Ctrl-Z, a pager): the connections stay open, unread.
        for s, _ in clients:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        time.sleep(a.no_read)
    for s, r in clients:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, r)
        open_ += 1
    while open_ and time.time() < deadline:
        for key, _ in sel.select(timeout=0.5):
            r = key.data
            try:
                data = key.fileobj.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if data and hello[r] is None:
                hello[r] = round(time.time() - start[r], 3)
            got[r] += len(data)
            if not data:
                sel.unregister(key.fileobj)
                key.fileobj.close()
                open_ -= 1
    for s in held:
        s.close()
    print(json.dumps({"ranks": len(ranks), "hello_s": hello, "bytes": got,
                      "unconnected": unconnected}))


if __name__ == "__main__":
    main()
