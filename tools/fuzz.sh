#!/usr/bin/env bash
# Runs every Go native fuzz target (func FuzzXxx(f *testing.F) in any package of the module) for a
# bounded time each, one after the other, and fails if any finds an input that breaks it.
#
#   FUZZTIME       time per target (default 10s)
#   FUZZ_PARALLEL  fuzz workers per target (default 1: the CI machine has 2 cores, shared)
#   FUZZ_MEMORY_KB virtual memory limit of the run (default 16 GiB): an input that makes a decoder
#                  ask for gigabytes fails the target instead of swapping the machine
#
# Targets are found with `go test -list`, so a new FuzzXxx is fuzzed without editing this file.
# Seeds (f.Add and testdata/fuzz/FuzzXxx/) also run in every plain `go test`. When a target fails,
# Go writes the input to <package>/testdata/fuzz/FuzzXxx/<hash>: fix the bug, then commit that file
# so that the input stays a regression test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fuzztime=${FUZZTIME:-10s}
parallel=${FUZZ_PARALLEL:-1}
ulimit -v "${FUZZ_MEMORY_KB:-16777216}"
log=$(mktemp)

# `go test -list` prints each package's matching names, then "ok <package> <time>".
targets=()
names=()
while read -r first second _; do
  case $first in
    Fuzz*) names+=("$first") ;;
    ok) for n in "${names[@]}"; do targets+=("$second $n"); done; names=() ;;
    FAIL) echo "fuzz: cannot list the targets of $second (go test -list failed)" >&2; exit 1 ;;
  esac
done < <(go test -list '^Fuzz' ./...)
if [[ ${#targets[@]} == 0 ]]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi

start=$SECONDS
failed=0
bin=$(mktemp -d)
trap 'rm -rf "$log" "$bin"' EXIT
built=""
for target in "${targets[@]}"; do
  read -r pkg name <<<"$target"
  # One instrumented test binary per package, run once per target: `go test -fuzz` would link it
  # again for each (seconds each), which is most of a 10 s budget. The binary runs in the
  # package's directory (for testdata/fuzz) with the corpus cache `go test -fuzz` uses.
  if [[ $built != "$pkg" ]]; then
    go test -c -fuzz='^Fuzz' -o "$bin/pkg.test" "$pkg"
    built=$pkg
  fi
  t0=$SECONDS
  if (cd "$(go list -f '{{.Dir}}' "$pkg")" && "$bin/pkg.test" -test.run='^$' -test.fuzz="^${name}\$" \
    -test.fuzztime="$fuzztime" -test.fuzzminimizetime=10s -test.parallel="$parallel" \
    -test.fuzzcachedir="$(go env GOCACHE)/fuzz/$pkg") >"$log" 2>&1; then
    printf 'fuzz: %-24s %s ok (%ds)\n' "$name" "$pkg" $((SECONDS - t0))
  else
    failed=$((failed + 1))
    printf 'fuzz: %-24s %s FAILED (%ds)\n' "$name" "$pkg" $((SECONDS - t0))
    cat "$log"
  fi
done
echo "fuzz: ${#targets[@]} targets, $fuzztime each, $failed failed, $((SECONDS - start))s in all"
if [[ $failed != 0 ]]; then
  echo "fuzz: fix each failure, and commit the input Go wrote under testdata/fuzz/ as its regression test" >&2
  exit 1
fi
