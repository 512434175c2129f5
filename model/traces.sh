#!/usr/bin/env bash
# The conformance traces: the script steps of random SPIN simulations of model/lock.pml and
# model/rwlock.pml, each with the Redis state the model expects after it (the '@' lines, see
# "conformance traces" in lock.pml and rwlock.pml). ModelConformanceTest and
# ReadWriteModelConformanceTest (lock-autoconfigure's tests) replay them, and every trail's
# model/trails/*.trace, through the real scripts on a real redis-server, so `./mvnw verify` needs no
# spin: the traces are committed, and model/verify.sh fails when they are not the ones the models write.
#
#   model/traces.sh write   rewrites model/traces/random.trace, features.trace and rwlock.trace
#   model/traces.sh check   exits 1 when a committed file differs from what the models write now
#
# A simulation that violates an assertion fails both (each is one more random test of the fixed model).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mode=${1:-check}

# name, seeds, defines: every configuration runs the fixed protocol; the environment's faults vary so
# that runs are long enough to exercise queues, hand-offs, withdrawals and lease ends.
configs=(
    "calm-reentrant|250|-DFIXED -DCYCLES0=3 -DCYCLES1=3 -DCYCLES2=3 -DREENTRIES=2 -DKILLS=0 -DCLOSES=0 -DPAUSES=0"
    "lossy|250|-DFIXED -DCYCLES0=3 -DCYCLES1=2 -DCYCLES2=3 -DLOST_REPLIES=2 -DLOST_MESSAGES=2 -DKILLS=0 -DCLOSES=0"
    "distinct-owners|250|-DFIXED -DDISTINCT_OWNERS -DCYCLES0=2 -DCYCLES1=2 -DCYCLES2=3 -DKILLS=0"
    "every-fault|250|-DFIXED -DCYCLES0=2 -DCYCLES1=2 -DCYCLES2=2 -DLATE_RENEWALS=1 -DASKS=2"
)

# the steps only some runs take (zero-wait tries, kept releases, async cancels, 'released' wake-ups, asks for a token)
feature_steps="-DFIXED -DZERO_WAIT_TRIES -DHOLD_AT_LEAST -DASYNC_CANCELS=1 -DRELEASED_MESSAGES -DASKS=2"
feature_configs=(
    "features-faults|150|$feature_steps -DCYCLES0=2 -DCYCLES1=3 -DCYCLES2=3 -DKILLS=0"
    "features-calm|100|$feature_steps -DCYCLES0=3 -DCYCLES1=3 -DCYCLES2=3 -DLOST_MESSAGES=0 -DKILLS=0 -DPAUSES=0 -DCLOSES=0"
)

# the read-write lock: two cycles per thread, with every fault rwlock.pml has (and a re-entry of a hold's own mode)
rw_configs=(
    "rw-faults|300|-DCYCLES=2 -DLATE_RENEWALS=1 -DREENTRIES=1"
    "rw-calm|300|-DCYCLES=3 -DLOST_REPLIES=0 -DKILLS=0 -DPAUSES=0"
)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/lock.pml" "$here/rwlock.pml" "$work/"
cd "$work" || exit 1
case "$mode" in write|check) ;; *) echo "usage: $0 write|check" >&2; exit 64 ;; esac

# simulate <model> <trace file name> <config...>: writes $work/<trace file name>; returns 1 when a simulation failed
simulate() {
    local model=$1 file=$2 failed=0; shift 2
    local out="$work/$file"
    echo "# written by model/traces.sh from model/$model: one block per simulation, '#' then its spin command" > "$out"
    for config in "$@"; do
        IFS='|' read -r name seeds defines <<< "$config"
        for ((seed = 1; seed <= seeds; seed++)); do
            if ! spin -T -n$seed -u20000 $defines "$model" > sim.txt 2>&1 || grep -q "Error:" sim.txt; then
                echo "traces: spin -n$seed $defines $model: $(grep -m1 'Error' sim.txt)" >&2
                failed=1
                continue
            fi
            echo "# $name: spin -n$seed $defines $model" >> "$out"
            grep '^@' sim.txt >> "$out"
        done
    done
    return $failed
}

# settle <model> <trace file name>: writes or checks model/traces/<trace file name>
settle() {
    local model=$1 file=$2
    local target="$here/traces/$file"
    case "$mode" in
        write)
            mkdir -p "$here/traces"
            cp "$work/$file" "$target"
            echo "traces: wrote $(grep -c '^# [a-z-]*: spin' "$target") traces, $(grep -c '^@' "$target") steps, $(wc -c < "$target") bytes to model/traces/$file"
            ;;
        check)
            if ! cmp -s "$work/$file" "$target"; then
                echo "traces: model/traces/$file is stale: it is not what model/$model writes now; run model/verify.sh traces" >&2
                return 1
            fi
            echo "traces: model/traces/$file is current ($(grep -c '^# [a-z-]*: spin' "$target") traces)"
            ;;
    esac
}

failed=0
simulate lock.pml random.trace "${configs[@]}" || failed=1
simulate lock.pml features.trace "${feature_configs[@]}" || failed=1
simulate rwlock.pml rwlock.trace "${rw_configs[@]}" || failed=1
if [ "$failed" != 0 ]; then exit 1; fi
settle lock.pml random.trace || failed=1
settle lock.pml features.trace || failed=1
settle rwlock.pml rwlock.trace || failed=1
exit $failed
