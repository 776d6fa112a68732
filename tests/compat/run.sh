#!/bin/sh
# run.sh VERSION [CTEST_REGEX] - build ibscope in a Debian system that has
# Wireshark VERSION (4.4: Debian 13 trixie, 4.6: forky) and run its tests
# there (by default the plugin's: ctest -R '^plugin\.').
#
# The system is made once with mmdebstrap from Debian's registry and kept in
# $IBSCOPE_CHROOTS (default /var/cache/ibscope-chroots/<suite>), outside the
# clone, so later runs reuse it.  Needs root (chroot) and mmdebstrap.
# Exit status: ctest's.
set -eu
version=${1:?usage: run.sh 4.4|4.6 [CTEST_REGEX]}
regex=${2:-'^plugin\.'}
case "$version" in
4.4) suite=trixie; aptopt= ;;
4.6) suite=forky; aptopt='--aptopt=Acquire::Check-Valid-Until "false"' ;;
*) echo "run.sh: no Debian system known for Wireshark $version (4.4 or 4.6)" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/../.." && pwd)
root=${IBSCOPE_CHROOTS:-/var/cache/ibscope-chroots}/$suite
packages=tshark,libwireshark-dev,cmake,gcc,make,pkg-config,libpcap-dev,libcmocka-dev,python3
packages=$packages,zlib1g-dev,liblzma-dev,libzstd-dev,util-linux
if [ ! -x "$root/usr/bin/tshark" ] || [ ! -f "$root/usr/include/zstd.h" ]; then
	command -v mmdebstrap >/dev/null || { echo "run.sh: needs mmdebstrap" >&2; exit 2; }
	mkdir -p "$(dirname "$root")"
	rm -rf "$root"
	echo "run.sh: making a $suite system in $root"
	# shellcheck disable=SC2086
	mmdebstrap --variant=apt ${aptopt:+"$aptopt"} --include="$packages" "$suite" "$root"
fi
# A fresh copy of the tree (tracked files), and the real captures when present.
rm -rf "$root/src" "$root/shared"
mkdir -p "$root/src"
(cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$root/src")
[ -d "$src/../shared/captures" ] && mkdir -p "$root/shared" &&
	cp -r "$src/../shared/captures" "$root/shared/"
# TMPDIR names a folder of the host: inside, /tmp.
chroot "$root" env TMPDIR=/tmp sh -c "cd /src && cmake -S . -B /tmp/ibscope-build >/dev/null &&
	cmake --build /tmp/ibscope-build -j\"\$(nproc)\" >/dev/null &&
	cd /tmp/ibscope-build && ctest --output-on-failure -R '$regex'"
