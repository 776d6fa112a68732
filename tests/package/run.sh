#!/bin/sh
# run.sh OUTDIR - build ibscope's .deb for Debian 12 (bookworm, Wireshark
# 4.0), 13 (trixie, 4.4) and forky (4.6), each in its release with its
# lintian (build.sh), then install each in a fresh minimal system of its
# release and check it there, the other releases' packages refused
# (clean_install.sh).  The .debs stay in OUTDIR/<release>/.
set -eu
out=${1:?usage: run.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
suites="bookworm trixie forky"
for s in $suites; do
	"$here/build.sh" "$s" "$out"
done
status=0
for s in $suites; do
	others=
	for o in $suites; do
		[ "$o" = "$s" ] || others="$others $(ls "$out/$o"/ibscope_*_amd64.deb)"
	done
	# shellcheck disable=SC2086
	"$here/clean_install.sh" "$s" "$(ls "$out/$s"/ibscope_*_amd64.deb)" $others || status=1
done
exit $status
