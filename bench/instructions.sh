#!/usr/bin/env bash
# User-space instructions per request of a bench server, counted by valgrind (callgrind), for
# hot-path work on a shared, noisy machine: wall-clock ratios there move by ±10 %, this count by
# < 1 % (two runs of the same server: 29,395 and 29,305). Each variant runs twice under callgrind,
# serving 4,000 and 24,000 `GET /` (h2load --h1, 8 connections); the slope between the two totals
# removes start-up and most JIT warm-up. Kernel time (sockets) is not counted: it is the same for
# every variant, so a ratio here overstates the wall-clock one; use it to compare changes, and
# bench/run.ts on a quiet machine for the docs/performance.md ratios.
#   bash bench/instructions.sh [variant ...]   (default: raw off ids limit metrics tracing)
#   variants raw-ids / raw-limit: raw Bun.serve doing the ids / limit variants' work by hand
#   variant limit-sliding: the limit variant with `algorithm: "sliding"`
#   variants raw-params / params: `GET /id/42?name=bench` (the params scenario) instead of `GET /`
#   variants raw-json / json: `POST /json` with a small JSON object (the json scenario)
#   variants proxy / filter: `trustProxy` (X-Forwarded-For sent, not read by `GET /`) / an `ipFilter`
# Needs valgrind and h2load (Debian: valgrind, nghttp2-client). ~70 s per variant.
set -euo pipefail
cd "$(dirname "$0")/.."
bun=$(readlink -f "$(command -v bun || echo node_modules/.bin/bun)")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# total VARIANT N: instructions of the server for start-up plus N requests.
total() {
  local variant=$1 n=$2 out=$tmp/$1.$2 server=bench/servers/webfw.ts path=/
  local -a env=(BENCH_SCENARIO=prod) load=()
  case $variant in
    raw) server=bench/servers/raw.ts env=(BENCH_SCENARIO=hello) ;;
    raw-ids) server=bench/servers/raw.ts env+=(BENCH_PROD=request-id) ;;
    raw-limit) server=bench/servers/raw.ts env+=(BENCH_PROD=limit-memory) ;;
    raw-params) server=bench/servers/raw.ts env=(BENCH_SCENARIO=params) path="/id/42?name=bench" ;;
    params) env=(BENCH_SCENARIO=params) path="/id/42?name=bench" ;;
    raw-json) server=bench/servers/raw.ts env=(BENCH_SCENARIO=json) path=/json load=(-d "$tmp/body.json" -H "content-type: application/json") ;;
    json) env=(BENCH_SCENARIO=json) path=/json load=(-d "$tmp/body.json" -H "content-type: application/json") ;;
    off) ;;
    ids) env+=(BENCH_PROD=request-id) ;;
    proxy) env+=(BENCH_PROD=trust-proxy) load=(-H "x-forwarded-for: 203.0.113.7") ;;
    filter) env+=(BENCH_PROD=ip-filter) ;;
    limit) env+=(BENCH_PROD=limit-memory) ;;
    limit-sliding) env+=(BENCH_PROD=limit-sliding) ;;
    metrics) env+=(BENCH_METRICS=1) ;;
    metrics-bare) env+=(BENCH_METRICS=bare) ;;
    tracing) env+=(BENCH_TRACING=1) ;;
    *) echo "unknown variant $variant" >&2; return 2 ;;
  esac
  # The clock-driven work out, as bench/gate.ts does (docs/performance.md, "The regression gate").
  env "${env[@]}" BUN_JSC_useConcurrentJIT=0 BUN_JSC_useConcurrentGC=0 BUN_GC_TIMER_DISABLE=1 \
    valgrind --tool=callgrind --callgrind-out-file="$out.cg" "$bun" "$server" >"$out.port" 2>"$out.err" &
  local pid=$! port=""
  for _ in $(seq 900); do
    port=$(grep -o '"port":[0-9]*' "$out.port" 2>/dev/null | cut -d: -f2 || true)
    [ -n "$port" ] && break
    sleep 0.2
  done
  [ -n "$port" ] || { echo "$variant: server did not start" >&2; cat "$out.err" >&2; kill "$pid"; return 1; }
  h2load --h1 -n "$n" -c "${INSTRUCTIONS_CONNECTIONS:-8}" -t 1 "${load[@]}" "http://127.0.0.1:$port$path" >"$out.h2" 2>&1
  grep -q "$n succeeded" "$out.h2" || { echo "$variant: not every request succeeded" >&2; cat "$out.h2" >&2; }
  kill -TERM "$pid"
  wait "$pid" || true
  awk '/^(summary|totals):/ {print $2; exit}' "$out.cg"
}

# The json variants' POST body: the same object as bench/lib/scenarios.ts sends.
printf '%s' '{"id":42,"name":"bench","tags":["a","b","c"],"nested":{"ok":true,"ratio":0.5}}' >"$tmp/body.json"

variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(raw off ids limit metrics tracing)
printf '| variant | instructions / request | vs off |\n|---|--:|--:|\n'
declare -A per
for v in "${variants[@]}"; do
  total "$v" 4000 >"$tmp/$v.a" &
  b=$(total "$v" 24000)
  wait
  a=$(cat "$tmp/$v.a")
  per[$v]=$(((b - a) / 20000))
  ratio=""
  [ -n "${per[off]:-}" ] && ratio=$(awk -v x="${per[$v]}" -v o="${per[off]}" 'BEGIN {printf "%.2f", x / o}')
  printf '| %s | %s | %s |\n' "$v" "${per[$v]}" "$ratio"
done
