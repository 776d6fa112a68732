# system.sh - Debian systems made with mmdebstrap and kept outside the clone
# (sourced by tests/compat/run.sh and tests/package/*.sh).
#
#   system_dir SUITE              where SUITE's build system lives
#   system_make SUITE PACKAGE...  make it if it is not there, then install
#                                 what of PACKAGE... it lacks
#   system_aptopt SUITE           mmdebstrap's apt option for SUITE, if any
#
# $IBSCOPE_CHROOTS (default /var/cache/ibscope-chroots) holds them.  Needs
# root (chroot) and mmdebstrap.

IBSCOPE_CHROOTS=${IBSCOPE_CHROOTS:-/var/cache/ibscope-chroots}

system_dir() { echo "$IBSCOPE_CHROOTS/$1"; }

# forky is testing: its Release file in the registry can be past Valid-Until.
system_aptopt() {
	case "$1" in
	forky) echo 'Acquire::Check-Valid-Until "false"' ;;
	esac
}

# The packages of a list that dpkg in ROOT (this machine: "") does not have
# installed.
system_missing() { # ROOT PACKAGE...
	root=$1; shift
	for p in "$@"; do
		${root:+chroot "$root"} dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q "ok installed" || printf '%s ' "$p"
	done
}

system_make() { # SUITE PACKAGE...
	suite=$1; shift
	root=$(system_dir "$suite")
	aptopt=$(system_aptopt "$suite")
	if [ ! -x "$root/usr/bin/apt-get" ]; then
		command -v mmdebstrap >/dev/null || { echo "system.sh: needs mmdebstrap" >&2; return 2; }
		mkdir -p "$IBSCOPE_CHROOTS"
		rm -rf "$root"
		echo "system.sh: making a $suite system in $root"
		list=$(echo "$@" | tr ' ' ,)
		mmdebstrap --variant=apt ${aptopt:+"--aptopt=$aptopt"} --include="$list" \
			"$suite" "$root" || return 2
		return 0
	fi
	missing=$(system_missing "$root" "$@")
	[ -z "$missing" ] && return 0
	echo "system.sh: installing $missing in $root"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	# shellcheck disable=SC2086
	chroot "$root" sh -c "apt-get update -q >/dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null"
}
