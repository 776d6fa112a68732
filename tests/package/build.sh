#!/bin/sh
# build.sh SUITE OUTDIR - build ibscope's .deb for a Debian release (bookworm:
# Debian 12 with Wireshark 4.0, trixie: 13 with 4.4, forky: 4.6) in that
# release, check it with that release's lintian, and put the .deb and
# lintian's findings (lintian-SUITE.txt) in OUTDIR/SUITE.
#
# The build runs on this machine when it is that release, else in the build
# system of tests/compat/system.sh.  dpkg-buildpackage works on a copy of the
# tracked files.  Exit status: 0 built and lintian reports no error, 1 not,
# 2 the build could not be attempted.
set -eu
suite=${1:?usage: build.sh bookworm|trixie|forky OUTDIR}
out=${2:?usage: build.sh SUITE OUTDIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/compat/system.sh"
case "$suite" in
bookworm | trixie | forky) ;;
*) echo "build.sh: no Debian release $suite (bookworm, trixie or forky)" >&2; exit 2 ;;
esac
builddeps="build-essential debhelper dpkg-dev lintian cmake pkgconf python3 scdoc libpcap-dev
	zlib1g-dev liblzma-dev libzstd-dev libwireshark-dev libglib2.0-dev"
here=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ "$here" = "$suite" ]; then
	root=
	# shellcheck disable=SC2086
	missing=$(system_missing "" $builddeps)
	[ -z "$missing" ] || { echo "build.sh: install $missing first" >&2; exit 2; }
else
	# shellcheck disable=SC2086
	system_make "$suite" $builddeps util-linux || exit 2
	root=$(system_dir "$suite")
fi
if [ -n "$root" ]; then
	work=$root/tmp/ibscope-deb
else
	# The build and lintian leave scratch files in TMPDIR: give them one
	# of their own, gone at the end.
	work=$(mktemp -d "${TMPDIR:-/tmp}/ibscope-deb.XXXXXX")
	trap 'rm -rf "$work"' EXIT INT TERM
	export TMPDIR="$work/tmp"
	mkdir -p "$TMPDIR"
fi
rm -rf "$work/ibscope"
mkdir -p "$work/ibscope"
(cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$work/ibscope")
inside() { # a command in the build system, in $work
	if [ -n "$root" ]; then
		system_run "$root" sh -c "cd /tmp/ibscope-deb && $1"
	else
		(cd "$work" && sh -c "$1")
	fi
}
echo "build.sh: building the $suite package"
if ! inside "cd ibscope && dpkg-buildpackage -b -us -uc" >"$work/build.log" 2>&1; then
	tail -30 "$work/build.log" >&2
	echo "build.sh: dpkg-buildpackage failed for $suite" >&2
	exit 1
fi
# lintian warns when run as root; nobody reads the .deb from a public folder.
chmod 755 "$work"
chmod 644 "$work"/*.deb
inside "HOME=/tmp runuser -u nobody -- lintian --info --pedantic ibscope_*_amd64.deb" \
	>"$work/lintian.txt" 2>&1 || true
mkdir -p "$out/$suite"
cp "$work"/ibscope_*_amd64.deb "$out/$suite/"
cp "$work/lintian.txt" "$out/$suite/lintian-$suite.txt"
rm -rf "$work"
trap - EXIT INT TERM
echo "build.sh: $out/$suite/$(cd "$out/$suite" && ls ibscope_*_amd64.deb)"
if [ -s "$out/$suite/lintian-$suite.txt" ]; then
	echo "build.sh: lintian ($suite, --pedantic --info) says:"
	grep -v '^N:' "$out/$suite/lintian-$suite.txt" | sed 's/^/  /'
else
	echo "build.sh: lintian ($suite, --pedantic --info) says nothing"
fi
if grep -q '^E:' "$out/$suite/lintian-$suite.txt"; then
	echo "build.sh: lintian reports errors for the $suite package" >&2
	exit 1
fi
