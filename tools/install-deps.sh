#!/bin/sh
# Install what building and testing mpiwatch needs on Debian/Ubuntu: both
# MPIs (Open MPI and MPICH), autotools, Python with jinja2 and pycparser,
# and a Fortran compiler. Does nothing when everything is already there.
set -eu

PACKAGES="build-essential autoconf automake libtool pkg-config
  libopenmpi-dev openmpi-bin libmpich-dev mpich gfortran
  python3 python3-jinja2 python3-pycparser valgrind
  libdw-dev clang lammps lammps-examples man-db
  libjs-chart.js libmicrohttpd-dev chromium"
# libdw-dev: call sites to file:line; clang: libFuzzer, for the client decoder's
# fuzz test; lammps: a real application for the call-site test (check-lammps);
# man-db: the installed man pages' test (check-install); libjs-chart.js: the
# HTML report's charts (optional); libmicrohttpd-dev: mpiwatch --web (optional);
# chromium: the HTML report's test in a headless browser (check-web-report)

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
