#!/usr/bin/env bash
# quickstart.sh - set up a Debian 12 machine for ibscope, build it, and run it.
#
#   ./quickstart.sh demo   install what the analyzer and the plugin need, build them,
#                          analyse a bundled sample
#   ./quickstart.sh quick  install what the quick tests need, build with the tests, run
#                          the quick tests alone (ctest -L quick: the unit tests and a
#                          few of each other kind, about a minute after the build)
#   ./quickstart.sh test   install what the tests need too, build (plain, ASan/UBSan,
#                          ThreadSanitizer, clang libFuzzer), run every test, fuzz each
#                          target briefly, run the plugin tests on Wireshark 4.4 and 4.6,
#                          build the Debian packages of 12, 13 and forky and test each in
#                          a fresh system (Debian systems made once with mmdebstrap, kept
#                          in $IBSCOPE_CHROOTS, default /var/cache/ibscope-chroots)
#
# All three are idempotent: packages already installed are not fetched again, and
# the builds are incremental.  Run as root or with sudo available.
set -euo pipefail
cd "$(dirname "$0")"

# What building and running the analyzer and the plugin needs (demo), and
# what the tests add: sanitizers and fuzzing (clang), cmocka, Scapy, the
# Debian systems (mmdebstrap), live replay, the package build and its
# checks, the manual pages, headless Chromium for the HTML reports, jq
# for the docs' excerpts (tests/docs/excerpts.py), clang-format for the
# layout of the C files (tests/style) and zstd for compressed captures.
# scdoc is the demo's too: without it the build has no manual pages, and
# `cmake --install` would not install what the package does.
DEMO_PACKAGES=(build-essential cmake pkg-config python3 libpcap-dev zlib1g-dev liblzma-dev
               libzstd-dev libglib2.0-dev libwireshark-dev tshark scdoc)
TEST_PACKAGES=(clang libclang-rt-dev libcmocka-dev python3-scapy libwiretap-dev wireshark-dev
               mmdebstrap iproute2 tcpreplay tmux man-db debhelper lintian chromium
               fonts-dejavu-core strace jq clang-format zstd)

install_packages() { # PACKAGE...
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    echo "quickstart: installing ${missing[*]}"
    "${sudo[@]}" apt-get update -q
    # A clean environment: a TMPDIR or locale of the caller's has no place in
    # the packages' maintainer scripts.
    "${sudo[@]}" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
        ${http_proxy:+http_proxy="$http_proxy"} ${https_proxy:+https_proxy="$https_proxy"} \
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Each phase of the test run with its time, and the total at the end, so a
# slow run says where its minutes went.
phase_start=$SECONDS
phases=()
phase() { # phase NAME COMMAND...
    local name=$1 t0=$SECONDS rc=0
    shift
    "$@" || rc=$?
    phases+=("$(printf '%-28s %4d s%s' "$name" $((SECONDS - t0)) "$([ $rc -eq 0 ] || echo " (failed)")")")
    return $rc
}
phase_report() {
    echo "quickstart: phase times"
    printf '  %s\n' "${phases[@]}"
    printf '  %-28s %4d s\n' "total" $((SECONDS - phase_start))
}

build() { # build DIR [cmake options...]
    local dir=$1; shift
    cmake -S . -B "$dir" "$@" >/dev/null
    cmake --build "$dir" -j"$(nproc)"
}

case "${1:-}" in
demo)
    install_packages "${DEMO_PACKAGES[@]}"
    build build -DIBSCOPE_TESTS=OFF
    echo
    echo "\$ build/bin/ibscope samples/captures/cm_ib_erf.pcap"
    build/bin/ibscope samples/captures/cm_ib_erf.pcap
    ;;
quick)
    trap phase_report EXIT
    phase "host packages" install_packages "${DEMO_PACKAGES[@]}" libcmocka-dev man-db
    phase "build (plain)" build build -DIBSCOPE_TESTS=ON
    phase "quick tests" sh -c 'cd build && ctest --output-on-failure --no-tests=error -j"$(nproc)" -L quick'
    ;;
test)
    trap phase_report EXIT
    phase "host packages" install_packages "${DEMO_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    # Warnings are errors here (IBSCOPE_WERROR is off for users' builds).
    phase "build (plain)" build build -DIBSCOPE_TESTS=ON -DIBSCOPE_WERROR=ON
    phase "build (ASan/UBSan)" build build-asan -DIBSCOPE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
        -DIBSCOPE_WERROR=ON
    phase "build (TSan)" build build-tsan -DIBSCOPE_SANITIZE_THREAD=ON -DIBSCOPE_BUILD_PLUGIN=OFF \
        -DCMAKE_BUILD_TYPE=Debug -DIBSCOPE_WERROR=ON
    # The tests get a scratch folder of their own, which must be empty again
    # at the end: a test that leaves files behind fails the run.
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/ibscope-tests.XXXXXX")
    chmod 1777 "$scratch" # tshark, run as nobody by the plugin tests, reads there
    export TMPDIR=$scratch
    phase "tests (plain)" sh -c 'cd build && ctest --output-on-failure --no-tests=error -j"$(nproc)"'
    phase "tests (ASan/UBSan)" sh -c 'cd build-asan && ctest --output-on-failure --no-tests=error -j"$(nproc)"'
    # The reader thread under ThreadSanitizer: every sample, and its batches' edges.
    phase "tests (TSan)" sh -c \
        "cd build-tsan && ctest --output-on-failure --no-tests=error -R '^analyzer\.(threads|golden|stdin|merge)\$'"
    phase "fuzz" fuzz/ci.sh build-fuzz
    # The plugin on the Wireshark versions of Debian 13 and forky.
    phase "plugin on Wireshark 4.4" tests/compat/run.sh 4.4
    phase "plugin on Wireshark 4.6" tests/compat/run.sh 4.6
    # The Debian packages of 12, 13 and forky, installed in fresh systems.
    phase "Debian packages" tests/package/run.sh build/deb
    # The Debian systems mend what an earlier run broke; the demo on a
    # fresh Debian 12.
    phase "Debian systems healed" tests/compat/heal_test.sh trixie
    phase "demo on a fresh Debian 12" tests/compat/quickstart_demo.sh build/bin/ibscope
    unset TMPDIR
    if [ -n "$(ls -A "$scratch")" ]; then
        echo "quickstart: the tests left files behind in TMPDIR:" >&2
        ls -A "$scratch" >&2
        exit 1
    fi
    rmdir "$scratch"
    ;;
*)
    echo "usage: $0 demo|quick|test" >&2
    exit 2
    ;;
esac
