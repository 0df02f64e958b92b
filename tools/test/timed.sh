#!/usr/bin/env bash
# tools/test/timed.sh LABEL CMD ARGS...: runs CMD, prints "time: LABEL: N s" whether it passed or
# not, and exits with CMD's status. The legs of make testacc print their wall time so, and .ci/run
# lists these lines under its own steps: where the minutes of a run go is read, not guessed.
set -uo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 LABEL CMD ARGS..." >&2; exit 2; }
label=$1
shift
start=$SECONDS
"$@"
rc=$?
printf 'time: %s: %d s%s\n' "$label" $((SECONDS - start)) "$([[ $rc == 0 ]] || echo " (failed, exit $rc)")"
exit $rc
