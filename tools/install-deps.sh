#!/bin/sh
# Install what mpiwatch needs on Debian/Ubuntu, with apt-get. Does nothing
# when everything is already there.
#   tools/install-deps.sh          what the whole test suite needs (both MPIs, ...)
#   tools/install-deps.sh --demo   only what building mpiwatch and running it need
#                                  (tools/demo.sh: one MPI, a few hundred MB less)
set -eu

# Building and running: autotools, an MPI (Open MPI; MPICH too for the tests),
# Python with jinja2 and pycparser, gfortran (the Fortran library);
# libdw-dev: call sites to file:line; libjs-chart.js: the HTML report's charts
# (optional); libmicrohttpd-dev: mpiwatch --web (optional); libotf2-trace-dev:
# the trace as an OTF2 archive (optional); libjansson-dev: reading reports
# back (mpiwatch --merge; optional).
BUILD="build-essential autoconf automake libtool pkg-config
  libopenmpi-dev openmpi-bin gfortran
  python3 python3-jinja2 python3-pycparser
  libdw-dev libjs-chart.js libmicrohttpd-dev libotf2-trace-dev libjansson-dev"
# Testing: the second MPI; valgrind (instruction counts); clang: libFuzzer,
# for the client decoder's fuzz test; lammps: a real application for the
# call-site test (check-lammps); man-db: the installed man pages' test
# (check-install); chromium: the HTML report and the live page in a headless
# browser (check-web-report, check-web-live); otf2-tools, python3-otf2:
# reading OTF2 archives back (the trace tests); python3-pandas: the Python
# package's DataFrames.
TEST="libmpich-dev mpich valgrind clang lammps lammps-examples man-db chromium
  otf2-tools python3-otf2 python3-pandas"

case ${1:-} in
    --demo) PACKAGES=$BUILD ;;
    "") PACKAGES="$BUILD $TEST" ;;
    -h|--help) sed -n '2,6s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown argument '$1' (--demo, or nothing for everything)" >&2; exit 2 ;;
esac

missing=""
for pkg in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $pkg"
done
if [ -z "$missing" ]; then
    echo "install-deps: everything needed is installed"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: these packages are missing and there is no apt-get:$missing" >&2
    echo "install-deps: install the equivalents with your system's package manager" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
        echo "install-deps: run as root (or install sudo) to install:$missing" >&2; exit 1; }
    SUDO=sudo
fi
echo "install-deps: installing:$missing"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
