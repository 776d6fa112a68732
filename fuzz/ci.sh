#!/bin/sh
# ci.sh - the CI fuzz step: a clang build with IBSCOPE_FUZZ=ON, then the saved
# inputs replayed and every target fuzzed for 20 s (ctest -R '^fuzz\.').
#
# Usage: fuzz/ci.sh [BUILD_DIR]   (default: build-fuzz beside fuzz/)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-fuzz}
CC=clang cmake -S "$src" -B "$build" -DIBSCOPE_FUZZ=ON -DIBSCOPE_BUILD_PLUGIN=OFF -DIBSCOPE_WERROR=ON
cmake --build "$build" -j2 --target fuzz_parse fuzz_engine fuzz_merge fuzz_parse_replay \
	fuzz_engine_replay fuzz_merge_replay
cd "$build"
ctest -R '^fuzz\.' --output-on-failure
