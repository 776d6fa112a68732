#!/bin/sh
# gui_screenshot.sh VERSION OUT.png - the Wireshark GUI (Qt 6) with the
# ibscope plugin, as a person sees it, in the Debian system of that version
# (tests/compat/run.sh makes it and builds the plugin there): Xvfb, the
# capture cm_rocev2.pcap at frame 4 (a reused port), the ibscope subtree
# expanded and its Analysis selected.  For docs/plugin-wireshark-gui.png;
# look at the picture before committing it.  Needs root (chroot).
set -eu
version=${1:?usage: gui_screenshot.sh 4.4|4.6 OUT.png}
out=${2:?usage: gui_screenshot.sh 4.4|4.6 OUT.png}
case "$version" in
4.4) suite=trixie ;;
4.6) suite=forky ;;
*) echo "gui_screenshot.sh: no Debian system known for Wireshark $version" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
root=${IBSCOPE_CHROOTS:-/var/cache/ibscope-chroots}/$suite
# The system, and the plugin built from this tree in it.
"$here/run.sh" "$version" '^plugin\.load$' >/dev/null
chroot "$root" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends wireshark xvfb xdotool scrot fonts-dejavu-core >/dev/null'
gui=$root/tmp/gui
rm -rf "$gui"
mkdir -p "$gui/home"
cp -r "$root/tmp/ibscope-build/plugins" "$gui/"
cp "$src/samples/captures/cm_rocev2.pcap" "$gui/"
chmod -R a+rwX "$gui"
mount --bind /proc "$root/proc"
mount --bind /dev "$root/dev"
trap 'umount "$root/proc"; umount -l "$root/dev"' EXIT
# Wireshark ignores personal plugin folders as root: it runs as nobody.
# Without a window manager the window is placed and sized by xdotool; the
# clicks are at the rows of that 1400x1000 layout.
chroot "$root" sh -c '
	export DISPLAY=:99
	Xvfb :99 -screen 0 1400x1000x24 -nolisten tcp >/tmp/gui/xvfb.log 2>&1 &
	sleep 1
	cd /tmp/gui
	runuser -u nobody -- env HOME=/tmp/gui/home XDG_RUNTIME_DIR=/tmp/gui/home \
		WIRESHARK_PLUGIN_DIR=/tmp/gui/plugins wireshark -r cm_rocev2.pcap -g 4 \
		>/tmp/gui/wireshark.log 2>&1 &
	for i in $(seq 30); do
		w=$(xdotool search --name cm_rocev2 2>/dev/null | head -1) && [ -n "$w" ] && break
		sleep 1
	done
	sleep 3
	xdotool windowmove "$w" 0 0 windowsize "$w" 1400 1000
	sleep 2
	xdotool mousemove 150 540 click 1   # the packet details
	sleep 0.5
	xdotool key End                     # the ibscope subtree, the last one
	sleep 0.3
	xdotool key shift+Right             # expanded, every level
	sleep 1
	xdotool key End                     # scrolled to its end
	sleep 0.5
	xdotool mousemove 79 736 click 1    # the Analysis heading
	sleep 1
	scrot -o /tmp/gui/shot.png
	pkill -x wireshark; pkill -x Xvfb; sleep 1'
cp "$gui/shot.png" "$out"
echo "gui_screenshot.sh: $out (Wireshark $(chroot "$root" dpkg-query -W -f='${Version}' wireshark))"
