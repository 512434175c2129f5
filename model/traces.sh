#!/usr/bin/env bash
# The conformance traces: the script steps of random SPIN simulations of model/lock.pml, each with the
# Redis state the model expects after it (the '@' lines, see "conformance traces" in lock.pml).
# ModelConformanceTest (lock-autoconfigure's tests) replays them, and every trail's model/trails/*.trace,
# through the real scripts on a real redis-server, so `./mvnw verify` needs no spin: the traces are
# committed, and model/verify.sh fails when they are not the ones the current model writes.
#
#   model/traces.sh write   rewrites model/traces/random.trace
#   model/traces.sh check   exits 1 when the committed file differs from what the model writes now
#
# A simulation that violates an assertion fails both (each is one more random test of the fixed model).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mode=${1:-check}
target="$here/traces/random.trace"

# name, seeds, defines: every configuration runs the fixed protocol; the environment's faults vary so
# that runs are long enough to exercise queues, hand-offs, withdrawals and lease ends.
configs=(
    "calm-reentrant|250|-DFIXED -DCYCLES0=3 -DCYCLES1=3 -DCYCLES2=3 -DREENTRIES=2 -DKILLS=0 -DCLOSES=0 -DPAUSES=0"
    "lossy|250|-DFIXED -DCYCLES0=3 -DCYCLES1=2 -DCYCLES2=3 -DLOST_REPLIES=2 -DLOST_MESSAGES=2 -DKILLS=0 -DCLOSES=0"
    "distinct-owners|250|-DFIXED -DDISTINCT_OWNERS -DCYCLES0=2 -DCYCLES1=2 -DCYCLES2=3 -DKILLS=0"
    "every-fault|250|-DFIXED -DCYCLES0=2 -DCYCLES1=2 -DCYCLES2=2 -DLATE_RENEWALS=1"
)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/lock.pml" "$work/"
cd "$work" || exit 1
out="$work/random.trace"
echo "# written by model/traces.sh from model/lock.pml: one block per simulation, '#' then its spin command" > "$out"
failed=0
for config in "${configs[@]}"; do
    IFS='|' read -r name seeds defines <<< "$config"
    for ((seed = 1; seed <= seeds; seed++)); do
        if ! spin -T -n$seed -u20000 $defines lock.pml > sim.txt 2>&1 || grep -q "Error:" sim.txt; then
            echo "traces: spin -n$seed $defines lock.pml: $(grep -m1 'Error' sim.txt)" >&2
            failed=1
            continue
        fi
        echo "# $name: spin -n$seed $defines lock.pml" >> "$out"
        grep '^@' sim.txt >> "$out"
    done
done
if [ "$failed" != 0 ]; then exit 1; fi
case "$mode" in
    write)
        mkdir -p "$here/traces"
        cp "$out" "$target"
        echo "traces: wrote $(grep -c '^# [a-z-]*: spin' "$target") traces, $(grep -c '^@[ARCNELX]' "$target") steps, $(wc -c < "$target") bytes to model/traces/random.trace"
        ;;
    check)
        if ! cmp -s "$out" "$target"; then
            echo "traces: model/traces/random.trace is stale: it is not what model/lock.pml writes now; run model/verify.sh traces" >&2
            exit 1
        fi
        echo "traces: model/traces/random.trace is current ($(grep -c '^# [a-z-]*: spin' "$target") traces)"
        ;;
    *) echo "usage: $0 write|check" >&2; exit 64 ;;
esac
