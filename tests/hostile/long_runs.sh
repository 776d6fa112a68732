#!/bin/sh
# long_runs.sh - the long hostile runs: 10 million never-closing tuples, a million redirects.
#
# Usage: tests/hostile/long_runs.sh BUILD_DIR [MAX_RSS_MIB]
#
# Streams are generated on the fly into 'ibscope -' (nothing big touches the
# disk but the temporary findings file of the storm's JSON report, ~0.4 GB).
# Checks as ctest's hostile.flood_short and hostile.redirect_short, at full
# size: exact eviction and drop counts, no findings but the expected ones, and
# peak RSS (GNU time's %M of ibscope alone) below MAX_RSS_MIB (default 256;
# 0 for a sanitizer build).  Each run prints its time and peak RSS; record them
# in docs/hardening.md ("The analyzer under fire").  About 5 minutes on the
# 2-core development machine.
set -eu
build=${1:?usage: long_runs.sh BUILD_DIR [MAX_RSS_MIB]}
rss=${2:-256}
here=$(cd "$(dirname "$0")" && pwd)
ibscope="$build/bin/ibscope"
test -x "$ibscope" || { echo "long_runs.sh: no $ibscope" >&2; exit 2; }

# 10,000,000 CM REQs with distinct tuples that never close (cap 131,072
# connections), with 1,000,000 unanswered PerfMgt Gets (cap 262,144 pending
# transactions).
python3 "$here/test_hostile.py" --ibscope "$ibscope" --max-rss-mib "$rss" --timeout 3600 \
    --flood 10000000 --gets 1000000 flood
# 1,000,000 redirecting GetResp(ClassPortInfo) without requests (cap 10,000 chains).
python3 "$here/test_hostile.py" --ibscope "$ibscope" --max-rss-mib "$rss" --timeout 3600 \
    --redirects 1000000 redirect
