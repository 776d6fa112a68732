# system.sh - Debian systems made with mmdebstrap and kept outside the clone
# (sourced by tests/compat/*.sh and tests/package/*.sh).  Nothing else calls
# chroot: every command inside a system goes through system_run.
#
#   system_dir SUITE              where SUITE's build system lives
#   system_make SUITE PACKAGE...  make it if it is not there (or was never
#                                 finished), heal it if an earlier install
#                                 broke off, then install what of PACKAGE...
#                                 it lacks
#   system_run ROOT COMMAND...    COMMAND inside ROOT, in a clean environment
#   system_missing ROOT PACKAGE...  what of PACKAGE... ROOT ("" here) lacks
#   system_fresh SUITE ROOT       a fresh minimal SUITE unpacked into ROOT
#   system_bootstrap SUITE OUT [OPTION...]  a minimal SUITE made by mmdebstrap
#   system_unmount ROOT           unmount all that is mounted in ROOT
#
# $IBSCOPE_CHROOTS (default /var/cache/ibscope-chroots) holds them.  Needs
# root (chroot, mount) and mmdebstrap.

IBSCOPE_CHROOTS=${IBSCOPE_CHROOTS:-/var/cache/ibscope-chroots}

# Written last when a system is made: a folder without it was interrupted.
SYSTEM_MADE=.ibscope-system-made

system_dir() { echo "$IBSCOPE_CHROOTS/$1"; }

# forky is testing: its Release file in the registry can be past Valid-Until.
system_aptopt() {
	case "$1" in
	forky) echo 'Acquire::Check-Valid-Until "false"' ;;
	esac
}

# Unmount whatever is mounted at or below ROOT, deepest first, so that a
# removal of ROOT never reaches into the host's /proc or /dev.
system_unmount() { # ROOT
	local real m
	real=$(realpath -m "$1")
	awk -v r="$real" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts |
		sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
}

# COMMAND inside ROOT with only the environment written here: the host's
# (its TMPDIR above all, a folder that does not exist inside) stays out.
# /proc, a private /dev/pts and /dev/shm are mounted for the command's time
# where the caller has not mounted them.  CI is passed on, so that tests
# inside fail where CI requires it, and a proxy, so that apt reaches out.
system_run() { # ROOT [VAR=VALUE...] COMMAND [ARG...]
	local root=$1 mounted= status=0 m
	shift
	for m in proc dev/pts dev/shm; do
		mkdir -p "$root/$m"
		mountpoint -q "$root/$m" && continue
		case $m in
		proc) mount -t proc proc "$root/proc" ;;
		dev/pts) mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts" ;;
		dev/shm) mount -t tmpfs -o mode=1777,size=256m shm "$root/dev/shm" ;;
		esac || status=2
		[ $status -eq 0 ] || break
		mounted="$m $mounted"
	done
	if [ $status -eq 0 ]; then
		cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
		chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root TMPDIR=/tmp LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=dumb \
			DEBIAN_FRONTEND=noninteractive ${CI:+CI="$CI"} ${http_proxy:+http_proxy="$http_proxy"} \
			${https_proxy:+https_proxy="$https_proxy"} "$@" || status=$?
	else
		echo "system.sh: cannot mount /proc, /dev/pts or /dev/shm in $root" >&2
	fi
	for m in $mounted; do
		umount "$root/$m" 2>/dev/null || umount -l "$root/$m"
	done
	return $status
}

# The packages of a list that dpkg in ROOT (this machine: "") does not have
# installed and configured.
system_missing() { # ROOT PACKAGE...
	local root=$1 have p
	shift
	# dpkg-query fails when it knows a package not at all: that is an answer.
	if [ -n "$root" ]; then
		have=$(system_run "$root" dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null) || true
	else
		have=$(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null) || true
	fi
	for p in "$@"; do
		echo "$have" | grep -qx "$p install ok installed" || printf '%s ' "$p"
	done
}

# What dpkg says is wrong in ROOT (half-installed or half-configured
# packages, an interrupted run), or nothing.
system_audit() { # ROOT
	system_run "$1" dpkg --audit 2>&1 || true
}

# Finish what an interrupted or failed install left: configure what was
# unpacked, then let apt mend broken dependencies.
system_heal() { # ROOT
	local root=$1
	[ -z "$(system_audit "$root")" ] && return 0
	echo "system.sh: $root has packages left half-done; configuring them"
	system_run "$root" sh -c 'dpkg --configure -a && apt-get -f install -y -q' >/dev/null 2>&1
	[ -z "$(system_audit "$root")" ]
}

# mmdebstrap, in a clean environment too, of a minimal SUITE into OUT (a
# folder, or a tar with --format=tar).
system_bootstrap() { # SUITE OUT [MMDEBSTRAP_OPTION...]
	local suite=$1 out=$2 aptopt
	shift 2
	command -v mmdebstrap >/dev/null || { echo "system.sh: needs mmdebstrap" >&2; return 2; }
	aptopt=$(system_aptopt "$suite")
	mkdir -p "$IBSCOPE_CHROOTS"
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		${http_proxy:+http_proxy="$http_proxy"} ${https_proxy:+https_proxy="$https_proxy"} \
		mmdebstrap --quiet --variant=apt ${aptopt:+"--aptopt=$aptopt"} "$@" "$suite" "$out"
}

system_create() { # SUITE ROOT PACKAGE...
	local suite=$1 root=$2 list
	shift 2
	system_unmount "$root"
	rm -rf "$root"
	echo "system.sh: making a $suite system in $root"
	list=$(echo "$@" | tr ' ' ,)
	system_bootstrap "$suite" "$root" --include="$list" || { rm -rf "$root"; return 2; }
	touch "$root/$SYSTEM_MADE"
}

# A fresh minimal SUITE unpacked into ROOT (an empty folder), the same for
# every run: made once by mmdebstrap as a tar in $IBSCOPE_CHROOTS, the
# packages that apt fetches inside kept beside it (bind-mounted).  The
# caller removes ROOT when done, after system_unmount.
system_fresh() { # SUITE ROOT
	local suite=$1 root=$2 tarball archives
	tarball=$IBSCOPE_CHROOTS/clean-$suite.tar
	archives=$IBSCOPE_CHROOTS/clean-$suite-archives
	if [ ! -s "$tarball" ]; then
		echo "system.sh: making a minimal $suite system in $tarball"
		system_bootstrap "$suite" "$tarball.part" --format=tar || return 2
		mv "$tarball.part" "$tarball"
	fi
	mkdir -p "$archives/partial"
	tar -C "$root" -xf "$tarball" || return 2
	mount --bind "$archives" "$root/var/cache/apt/archives"
}

system_install() { # ROOT PACKAGE...
	local root=$1
	shift
	system_run "$root" sh -c "apt-get update -q >/dev/null &&
		apt-get install -y -q --no-install-recommends $* >/dev/null"
}

system_make() { # SUITE PACKAGE...
	local suite=$1 root missing
	shift
	root=$(system_dir "$suite")
	if [ ! -f "$root/$SYSTEM_MADE" ]; then
		system_create "$suite" "$root" "$@"
		return
	fi
	if ! system_heal "$root"; then
		echo "system.sh: $root could not be healed; making it anew" >&2
		system_create "$suite" "$root" "$@"
		return
	fi
	missing=$(system_missing "$root" "$@")
	[ -z "$missing" ] && return 0
	echo "system.sh: installing $missing in $root"
	# shellcheck disable=SC2086
	system_install "$root" $missing && return 0
	echo "system.sh: the install failed in $root; healing it and trying again" >&2
	# shellcheck disable=SC2086
	system_heal "$root" && system_install "$root" $missing && return 0
	echo "system.sh: could not install $missing in $root" >&2
	return 2
}
