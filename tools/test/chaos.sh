#!/usr/bin/env bash
# make testchaos: the chaos tests (brokers crash, restart and stall under reads and plans). They
# stop, kill and pause brokers, so the tests of one cluster run one at a time (-p 1, no t.Parallel).
# They spend their time waiting for brokers to die and come back, so each package's
# TestChaosCluster* get a cluster of their own (a controller and 3 brokers) and these legs run side
# by side. TestChaosSingleNode* then run alone, on one broker: with the clusters beside it, its
# restarted broker once took 32 s to start on 2 cores, past the 30 s its reads wait.
# Each leg's output goes to a log of its own, printed whole once the legs beside it have ended, with
# its time (tools/test/timed.sh). RACE (default -race; empty for none) goes to go test. Exits 1
# if any leg failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
race=${RACE--race}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# packages FUNC: the packages (./internal/...) whose tests declare a function whose name starts with FUNC.
packages() {
  grep -rl --include='*_test.go' "^func $1" internal | xargs -r -n1 dirname | sort -u | sed 's|^|./|'
}

# leg N LABEL BROKERS RUN PACKAGE...: in the background, output to $logs/N.log.
labels=()
pids=()
leg() {
  local n=$1 label=$2 brokers=$3 run=$4
  shift 4
  labels[n]=$label
  # shellcheck disable=SC2086 # $race is one flag or none
  TF_ACC=1 KAFKA_CHAOS=1 KAFKA_BROKERS=$brokers ./tools/test/timed.sh "testchaos: $label" \
    ./tools/kafka.sh run -- go test -p 1 $race -count=1 -timeout 20m -run "$run" -v "$@" \
    >"$logs/$n.log" 2>&1 &
  pids[n]=$!
}

mapfile -t cluster < <(packages TestChaosCluster)
mapfile -t single < <(packages TestChaosSingleNode)
[[ ${#cluster[@]} -gt 0 && ${#single[@]} -gt 0 ]] || { echo "testchaos: no chaos tests found" >&2; exit 1; }
# The test binaries first, once, so that the legs do not each compile the same packages.
# shellcheck disable=SC2086
go test $race -count=1 -run '^$' "${cluster[@]}" "${single[@]}" >/dev/null
# finish: waits for the legs started, prints their logs; rc becomes 1 if one failed.
rc=0
finish() {
  local i
  for i in "${!pids[@]}"; do
    wait "${pids[i]}" || rc=1
    printf '\n--- testchaos leg: %s\n' "${labels[i]}"
    cat "$logs/$i.log"
  done
  pids=()
}
n=0
for pkg in "${cluster[@]}"; do
  leg $n "cluster of 3 brokers, ${pkg#./internal/}" 3 '^TestChaosCluster' "$pkg"
  n=$((n + 1))
done
finish
leg $n "single broker" 1 '^TestChaosSingleNode' "${single[@]}"
finish
exit $rc
