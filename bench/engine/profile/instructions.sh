#!/usr/bin/env bash
# Instructions per engine command, per function and per source line, exactly (valgrind counts
# instructions, so the figures repeat whatever else the machine does). Two callgrind runs of
# replay.js, with N measured commands and with none; V8 writes a jitdump of its optimized code
# with line tables (--perf-prof), and jitlines.py joins both. padlines.py first copies dist with
# each engine file shifted by a multiple of 1000 lines, because V8 names the outer function's
# script for inlined code: a line number alone then names the file.
#
#   bash bench/engine/profile/instructions.sh [fast|normal|deep] [N=50000] [warm=100000]
#   BYLINE=1 for the per-line view across all code; TOP=n lines (default 70).
#   EVENT=DLmr (or D1mr, DLmw, ...) counts simulated cache misses instead of instructions; the
#   last level is simulated as this machine's per-core L2 (1 MiB, 16-way), which is what a
#   command's random accesses into a deep book miss.
set -euo pipefail
cd "$(dirname "$0")/../../.."
kind=${1:-fast}; n=${2:-50000}; warm=${3:-100000}
work=$(mktemp -d)
ln -s "$(pwd)/node_modules" "$work/node_modules"
npm run build >/dev/null
# The server's Node options (http/node_flags.ts): they decide what TurboFan inlines. V8's string
# hash seed and random seed are fixed below: with a random seed per run, one build counted 4 770
# to 5 340 instructions a command of the fast flow (all code), and 5 021 and 5 227 in optimized
# code; with them fixed, 5 290 and 5 292 (all code), 5 223 and 5 197 (optimized code).
flags=$(node --input-type=module -e "import('./dist/http/node_flags.js').then((m) => console.log(m.SERVER_NODE_FLAGS.join(' ')))")
python3 bench/engine/profile/padlines.py dist "$work/dist" "$work/lines.map"
node dist/bench/engine/profile/replay.js 0 0 "$kind" >/dev/null   # builds the cached flow natively
for count in 0 "$n"; do
  (cd "$work" && valgrind --tool=callgrind --dump-instr=yes ${EVENT:+--cache-sim=yes --LL=1048576,16,64} --callgrind-out-file="$work/cg.$count" \
    node $flags --single-threaded --hash-seed=1 --random-seed=1 --perf-prof --no-write-protect-code-memory "$work/dist/bench/engine/profile/replay.js" "$count" "$warm" "$kind" >/dev/null 2>&1)
  mv "$(ls -t "$work"/jit-*.dump | head -1)" "$work/jit.$count"
  rm -f "$work"/jit-*.dump
done
python3 bench/engine/profile/jitlines.py "$n" "${TOP:-70}" "$work/cg.0" "$work/jit.0" "$work/cg.$n" "$work/jit.$n" "$work/lines.map" "$work/dist"
rm -rf "$work"
