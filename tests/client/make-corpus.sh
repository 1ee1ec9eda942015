#!/usr/bin/env bash
# Regenerates the fuzz seed corpus (tests/client/corpus) from the fake
# rank's scripted streams: raw streams (first byte even) and --record files
# made of them (first byte odd); see fuzz_decoder.c for the input layout.
#   tests/client/make-corpus.sh FAKE_RANK_BINARY [OUTDIR]
set -eu
fake=$1
out=${2:-$(cd "$(dirname "$0")" && pwd)/corpus}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$fake" --dump 0 1 normal >"$tmp/n0"
"$fake" --dump 2 3 normal >"$tmp/n2"
"$fake" --dump 1 2 lost >"$tmp/l1"
"$fake" --dump 1 2 inflight >"$tmp/i1"
"$fake" --dump 2 3 rates >"$tmp/r2"
{ printf '\000'; cat "$tmp/n0"; } >"$out/stream-normal-rank0"
{ printf '\002'; cat "$tmp/n2"; } >"$out/stream-normal-rank2"
{ printf '\004'; cat "$tmp/l1"; } >"$out/stream-lost-rank1"
{ printf '\006'; cat "$tmp/i1"; } >"$out/stream-inflight-rank1"
{ printf '\010'; cat "$tmp/r2"; } >"$out/stream-rates-rank2"
# record.h's layout: header, then (kind, slot, t, length, bytes) records.
python3 - "$tmp" "$out" <<'PY'
import struct, sys
tmp, out = sys.argv[1], sys.argv[2]
def header(slots):
    h = b"MPIWATCH-RECORD\n" + struct.pack("<II", 1, len(slots))
    for rank, desc in slots:
        h += struct.pack("<iH", rank, len(desc)) + desc.encode()
    return h
def rec(kind, slot, t, data):
    return struct.pack("<BIQI", kind, slot, t, len(data)) + data
n0 = open(tmp + "/n0", "rb").read()
n2 = open(tmp + "/n2", "rb").read()
l1 = open(tmp + "/l1", "rb").read()
body, t = b"", 0
for i in range(0, max(len(n0), len(n2)), 37):   # the two ranks interleaved
    for slot, s in ((0, n0), (1, n2)):
        if i < len(s):
            t += 1000
            body += rec(1, slot, t, s[i:i + 37])
open(out + "/record-two-ranks", "wb").write(
    b"\x01" + header([(0, "tcp://127.0.0.1:5000"), (-1, "tcp://[::1]:5001")]) + body)
open(out + "/record-lost", "wb").write(
    b"\x03" + header([(1, "mpi:port 1")]) + rec(1, 0, 5, l1) +
    rec(2, 0, 9, b"the rank closed the connection"))
PY
echo "corpus in $out: $(ls "$out" | wc -l) files"
