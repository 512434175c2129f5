#!/usr/bin/env bash
# Redis's own cost of the uncontended pair's two script calls, per call, for several versions of the
# scripts side by side: a private redis-server, N first acquisitions (acquire.lua on N free keys) piped
# at once, then N short releases of them (release.lua with the key and the owner), each version in turn
# (each round starting with the next one), ROUNDS times, so old and new share the machine's load.
# Prints per call and version: Redis CPU (INFO cpu, user + system, which counts reading the calls and
# writing the replies too) and the time inside EVALSHA (INFO commandstats), then the medians over the
# rounds. Pass one version twice (two copies of a directory) to see the noise between equals.
#
# Usage: lock-benchmarks/redis-script-cpu.sh DIR... (each DIR holds an acquire.lua and a release.lua, and may hold a
#   file flags: acquire.lua's ARGV[3] for that version's uncontended lock(key); 011 when absent, 0101 since issue 33's
#   flag 3, 0111 for a lock handle's acquisition, which draws its token)
#   e.g. for the scripts at a commit: git show <rev>:lock-autoconfigure/src/main/resources/io/github/redislock/core/script/acquire.lua
# Environment: ROUNDS (7), CALLS (100000), REDIS_SERVER (redis-server), PORT (a free one above 20000).
set -euo pipefail
[ $# -ge 1 ] || { sed -n 2,14p "$0"; exit 2; }
ROUNDS=${ROUNDS:-7}
CALLS=${CALLS:-100000}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
PORT=${PORT:-$((20000 + RANDOM % 20000))}
WORK=$(mktemp -d)
"$REDIS_SERVER" --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no --dir "$WORK" > "$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
cli() { redis-cli -p "$PORT" "$@"; }
for _ in $(seq 50); do cli ping > /dev/null 2>&1 && break; sleep 0.1; done

cpu() { cli info cpu | tr -d '\r' | awk -F: '/^used_cpu_(user|sys):/ { s += $2 } END { printf "%.6f", s }'; }
inside() { cli info commandstats | tr -d '\r' | sed -n 's/^cmdstat_evalsha:calls=\([0-9]*\),usec=\([0-9]*\),.*/\2 \1/p'; }
# RESP for CALLS calls of one script: EVALSHA sha 1 <key i> <args...>
calls() {
    local sha=$1 tag=$2; shift 2
    awk -v n="$CALLS" -v sha="$sha" -v tag="$tag" -v args="$*" 'BEGIN {
        argc = split(args, a, " ")
        for (i = 1; i <= n; i++) {
            key = "lock:" tag ":" i
            printf "*%d\r\n$7\r\nEVALSHA\r\n$40\r\n%s\r\n$1\r\n1\r\n$%d\r\n%s\r\n", 4 + argc, sha, length(key), key
            for (j = 1; j <= argc; j++) printf "$%d\r\n%s\r\n", length(a[j]), a[j]
        }
    }'
}
OWNER="5b0c9d6e-3f1a-4c2b-9e8d-7a6b5c4d3e2f:131"
measure() { # label sha tag args...
    local label=$1 sha=$2 tag=$3; shift 3
    calls "$sha" "$tag" "$@" > "$WORK/calls"
    cli config resetstat > /dev/null
    local before after
    before=$(cpu)
    cli --pipe < "$WORK/calls" > /dev/null
    after=$(cpu)
    read -r usec n <<< "$(inside)"
    [ "$n" = "$CALLS" ] || { echo "$label: $n of $CALLS calls ran" >&2; exit 1; }
    printf '%s %.3f %.3f\n' "$label" "$(echo "($after - $before) * 1000000 / $CALLS" | bc -l)" "$(echo "$usec / $CALLS" | bc -l)" | tee -a "$WORK/results"
}
DIRS=("$@")
for round in $(seq "$ROUNDS"); do
    for turn in $(seq 0 $(($# - 1))); do
        dir=${DIRS[$(((round + turn) % $#))]} # each round starts with the next version: none always runs first
        acquire=$(cli script load "$(cat "$dir/acquire.lua")")
        release=$(cli script load "$(cat "$dir/release.lua")")
        tag="r$round:$(basename "$dir")"
        measure "$(basename "$dir") acquire" "$acquire" "$tag" 30000 "$OWNER" "$(cat "$dir/flags" 2>/dev/null || echo 011)"
        [ "$(cli exists "lock:$tag:$CALLS")" = 1 ] || { echo "$dir: acquire.lua took no lock" >&2; exit 1; }
        measure "$(basename "$dir") release" "$release" "$tag" "$OWNER"
        [ "$(cli dbsize)" = 0 ] || { echo "$dir: release.lua left $(cli dbsize) keys" >&2; exit 1; }
    done
done
echo "medians over $ROUNDS rounds of $CALLS calls: version call, Redis CPU us per call, us inside EVALSHA per call"
sort -k1,2 -s "$WORK/results" | awk '
    function flush() { if (n) { printf "%s %s %.2f %.2f\n", v, c, med(cpu, n), med(ins, n) } n = 0 }
    function med(x, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
        return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
    $1 != v || $2 != c { flush(); v = $1; c = $2 }
    { n++; cpu[n] = $3; ins[n] = $4 }
    END { flush() }'
