#!/usr/bin/env sh
# Builds native/fuzz/fuzz_router.c with clang (libFuzzer + AddressSanitizer +
# UBSan) and fuzzes native/router.c for a bounded time.
# Usage: native/fuzz/run.sh [SECONDS]   (default 60)
# Exits non-zero on a crash, leak, timeout, out-of-bounds access or a
# disagreement with the reference matcher; the crashing input is then kept in
# the work dir ($FUZZ_OUT, default a fresh temp dir, removed after a clean run).
set -eu
seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
keep=${FUZZ_OUT:+yes}
out=${FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/webfw-fuzz.XXXXXX")}
clang=${CLANG:-clang}

if ! command -v "$clang" >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "clang missing: installing Debian's clang" >&2
    flock /tmp/apt.lock apt-get install -y clang >/dev/null
  else
    echo "clang not found: install it (Debian: apt-get install -y clang) or set CLANG" >&2
    exit 2
  fi
fi

mkdir -p "$out/corpus"
cp "$here"/corpus/* "$out/corpus/"
"$clang" -g -O1 -std=c99 -Wall -Wextra -Werror \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
  -o "$out/fuzz_router" "$here/fuzz_router.c" "$here/../router.c"

cd "$out"
# -fork=0 keeps one process; libFuzzer itself exits non-zero on any finding.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ./fuzz_router -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -dict="$here/router.dict" -print_final_stats=1 -artifact_prefix="$out/" corpus
echo "fuzz: no crash, leak or mismatch in ${seconds}s"
# Keep the work dir only when asked (FUZZ_OUT) or, through set -e above, on a finding.
[ -n "$keep" ] || rm -rf "$out"
