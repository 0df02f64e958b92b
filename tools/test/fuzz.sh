#!/usr/bin/env bash
# Runs every Go native fuzz target (func FuzzXxx(f *testing.F) in any package of the module) for a
# bounded time each, one after the other, and fails if any finds an input that breaks it.
#
#   FUZZTIME       time per target (default 10s)
#   FUZZ_PARALLEL  fuzz workers per target (default 1: the CI machine has 2 cores, shared)
#   FUZZ_MEMORY_KB virtual memory limit of the run (default 16 GiB): an input that makes a decoder
#                  ask for gigabytes fails the target instead of swapping the machine
#
# Targets are found by each test binary's -test.list (as `go test -list`), so a new FuzzXxx is
# fuzzed without editing this file.
# Seeds (f.Add and testdata/fuzz/FuzzXxx/) also run in every plain `go test`. When a target fails,
# Go writes the input to <package>/testdata/fuzz/FuzzXxx/<hash>: fix the bug, then commit that file
# so that the input stays a regression test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fuzztime=${FUZZTIME:-10s}
parallel=${FUZZ_PARALLEL:-1}
ulimit -v "${FUZZ_MEMORY_KB:-16777216}"
log=$(mktemp)

# Packages whose tests define a fuzz target (gofmt starts each "func FuzzXxx(" on its own line);
# each package's test binary then lists its targets itself (-test.list, as `go test -list`).
pkgs=()
while read -r pkg files; do
  if [[ -n $files ]] && grep -qs '^func Fuzz' $files; then pkgs+=("$pkg"); fi
done < <(go list -f '{{.ImportPath}}{{range .TestGoFiles}} {{$.Dir}}/{{.}}{{end}}{{range .XTestGoFiles}} {{$.Dir}}/{{.}}{{end}}' ./...)
if [[ ${#pkgs[@]} == 0 ]]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi

# run_target fuzzes $name of the package built in $bin, in $dir, output in $log.
run_target() {
  (cd "$dir" && "$bin/pkg.test" -test.run='^$' -test.fuzz="^${name}\$" -test.fuzztime="$fuzztime" \
    -test.fuzzminimizetime=10s -test.parallel="$parallel" -test.fuzzcachedir="$(go env GOCACHE)/fuzz/$pkg") \
    >"$log" 2>&1
}

start=$SECONDS
failed=0
count=0
bin=$(mktemp -d)
trap 'rm -rf "$log" "$bin"' EXIT
for pkg in "${pkgs[@]}"; do
  # One instrumented test binary per package, run once per target: `go test -fuzz` would link it
  # again for each (seconds each), which is much of a 10 s budget. The binary runs in the
  # package's directory (for testdata/fuzz) with the corpus cache that `go test -fuzz` uses.
  go test -c -fuzz='^Fuzz' -o "$bin/pkg.test" "$pkg"
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for name in $(cd "$dir" && "$bin/pkg.test" -test.list '^Fuzz' | grep '^Fuzz'); do
    count=$((count + 1))
    t0=$SECONDS
    for try in 1 2; do
      if run_target; then
        printf 'fuzz: %-24s %s ok (%ds)\n' "$name" "$pkg" $((SECONDS - t0))
        break
      fi
      # Go's fuzz coordinator sometimes ends a run at -fuzztime with a bare "context deadline
      # exceeded" and no failing input: a toolchain hiccup, not a find. Run it once more; a real
      # find always writes its input under testdata/fuzz/.
      if ! grep -q 'Failing input written' "$log" && grep -q 'context deadline exceeded' "$log"; then
        if [[ $try == 1 ]]; then
          echo "fuzz: $name: the fuzzing engine stopped without a failing input (context deadline exceeded); once more"
          continue
        fi
        printf 'fuzz: %-24s %s ok, though the engine stopped twice without a failing input (%ds)\n' \
          "$name" "$pkg" $((SECONDS - t0))
        break
      fi
      failed=$((failed + 1))
      printf 'fuzz: %-24s %s FAILED (%ds)\n' "$name" "$pkg" $((SECONDS - t0))
      cat "$log"
      break
    done
  done
done
echo "fuzz: $count targets, $fuzztime each, $failed failed, $((SECONDS - start))s in all"
if [[ $failed != 0 ]]; then
  echo "fuzz: fix each failure, and commit the input Go wrote under testdata/fuzz/ as its regression test" >&2
  exit 1
fi
