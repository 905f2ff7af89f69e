#!/usr/bin/env bash
# Instructions per engine command, per function and per source line, exactly (valgrind counts
# instructions, so the figures repeat whatever else the machine does). One callgrind run of
# replay.js with its instrumentation off until the measured commands start and off again after
# them (replay.js waits on a FIFO at each point while this script switches it with
# callgrind_control), so only those commands are counted. V8 writes a jitdump of its optimized
# code with line tables (--perf-prof), and jitlines.py joins the two. padlines.py first copies
# dist with each engine file shifted by a multiple of 1000 lines, because V8 names the outer
# function's script for inlined code: a line number alone then names the file.
#
#   bash bench/engine/profile/instructions.sh [fast|normal|deep] [N=50000] [warm=100000]
#   BYLINE=1 for the per-line view across all code; TOP=n lines (default 70).
#   EVENT=DLmr (or D1mr, DLmw, ...) counts simulated cache misses instead of instructions; the
#   last level is simulated as this machine's per-core L2 (1 MiB, 16-way), which is what a
#   command's random accesses into a deep book miss.
#   DIST=path profiles that build instead of building this tree (to compare two builds: each
#   runs from the same temporary path, since the path a build runs from moves the counts).
#
# Counting two runs, with N commands and with none, and taking the difference (as this script
# did before) moved by ±5 % between runs of one build (deep flow: 3 497 to 3 762), since each run's
# thousands of millions of start-up instructions vary by more than the difference; the window
# counts one build the same to a few instructions (deep 3 806 and 3 807, fast 5 662 and 5 665).
set -euo pipefail
cd "$(dirname "$0")/../../.."
kind=${1:-fast}; n=${2:-50000}; warm=${3:-100000}
dist=$(realpath "${DIST:-dist}")
work=$(mktemp -d)
profiled=
trap '[ -z "$profiled" ] || kill "$profiled" 2>/dev/null; rm -rf "$work"' EXIT
ln -s "$(pwd)/node_modules" "$work/node_modules"
[ -n "${DIST:-}" ] || npm run build >/dev/null
[ -f "$dist/bench/engine/profile/replay.js" ] || { echo "no build at $dist" >&2; exit 1; }
# The server's Node options (http/node_flags.ts): they decide what TurboFan inlines. V8's string
# hash seed and random seed are fixed below: with a random seed per run, one build counted 4 770
# to 5 340 instructions a command of the fast flow (all code), and 5 021 and 5 227 in optimized
# code.
flags=$(node --input-type=module -e "import('$dist/http/node_flags.js').then((m) => console.log(m.SERVER_NODE_FLAGS.join(' ')))")
python3 bench/engine/profile/padlines.py "$dist" "$work/dist" "$work/lines.map"
node "$dist/bench/engine/profile/replay.js" 0 0 "$kind" >/dev/null   # builds the cached flow natively
mkfifo "$work/fifo"
# From the temporary directory, where V8 writes its jitdump; env execs valgrind, so $! is its pid.
env --chdir="$work" valgrind --tool=callgrind --instr-atstart=no --dump-instr=yes ${EVENT:+--cache-sim=yes --LL=1048576,16,64} \
  --callgrind-out-file="$work/cg" node $flags --single-threaded --hash-seed=1 --random-seed=1 --perf-prof \
  --no-write-protect-code-memory "$work/dist/bench/engine/profile/replay.js" "$n" "$warm" "$kind" "$work/fifo" \
  >"$work/out" 2>"$work/stages" &
profiled=$!
# Waits for replay.js to reach `stage`, then runs the rest of the arguments and lets it go on.
step() {
  local stage=$1; shift
  until grep -qx "$stage" "$work/stages" 2>/dev/null; do
    kill -0 "$profiled" 2>/dev/null || { cat "$work/stages" >&2; exit 1; }
    sleep 0.2
  done
  "$@"
  echo >"$work/fifo"
}
step ready true
step counting callgrind_control --instr=on "$profiled" >/dev/null 2>&1
step done callgrind_control --instr=off "$profiled" >/dev/null 2>&1
wait "$profiled"
mv "$(ls -t "$work"/jit-*.dump | head -1)" "$work/jit"
total=$(awk -v event="${EVENT:-Ir}" '/^events:/ { for (i = 2; i <= NF; i++) if ($i == event) column = i }
  /^totals:/ { print $column }' "$work/cg")
awk -v t="$total" -v n="$n" -v what="${EVENT:-instructions}" -v digits="${EVENT:+2}" \
  'BEGIN { printf "%.*f %s per command, all code\n", digits + 0, t / n, what }'
python3 bench/engine/profile/jitlines.py "$n" "${TOP:-70}" "$work/cg" "$work/jit" "$work/lines.map" "$work/dist"
