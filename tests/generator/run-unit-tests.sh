#!/bin/sh
# Generator unit tests: no MPI needed (hand-written headers, a plain cc).
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PYTHON:=python3}"
cd "$top_srcdir"
PYTHONPATH="$top_srcdir/generator" PYTHONDONTWRITEBYTECODE=1 \
    exec "$PYTHON" -m unittest discover -v -s tests/generator -p 'test_*.py'
