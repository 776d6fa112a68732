#!/bin/sh
# run.sh VERSION [CTEST_REGEX] - build ibscope in a Debian system that has
# Wireshark VERSION (4.4: Debian 13 trixie, 4.6: forky) and run its tests
# there (by default the plugin's: ctest -R '^plugin\.').
#
# The system is made once with mmdebstrap from Debian's registry and kept in
# $IBSCOPE_CHROOTS (default /var/cache/ibscope-chroots/<suite>), outside the
# clone, so later runs reuse it (tests/compat/system.sh).  Needs root
# (chroot) and mmdebstrap.
# Exit status: ctest's.
set -eu
version=${1:?usage: run.sh 4.4|4.6 [CTEST_REGEX]}
regex=${2:-'^plugin\.'}
case "$version" in
4.4) suite=trixie ;;
4.6) suite=forky ;;
*) echo "run.sh: no Debian system known for Wireshark $version (4.4 or 4.6)" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/compat/system.sh"
root=$(system_dir "$suite")
system_make "$suite" tshark libwireshark-dev cmake gcc make pkg-config libpcap-dev \
	libcmocka-dev python3 zlib1g-dev liblzma-dev libzstd-dev util-linux scdoc man-db
# A fresh copy of the tree (tracked files), and the real captures when present.
rm -rf "$root/src" "$root/shared"
mkdir -p "$root/src"
(cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$root/src")
[ -d "$src/../shared/captures" ] && mkdir -p "$root/shared" &&
	cp -r "$src/../shared/captures" "$root/shared/"
system_run "$root" sh -c "cd /src && cmake -S . -B /tmp/ibscope-build -DIBSCOPE_WERROR=ON >/dev/null &&
	cmake --build /tmp/ibscope-build -j\"\$(nproc)\" >/dev/null &&
	cd /tmp/ibscope-build && ctest --output-on-failure --no-tests=error -R '$regex'"
