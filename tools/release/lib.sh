# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this
# What tools/release/check.sh, install.sh and apply.sh share (sourced, not run): the repository
# root, the provider's file name and Registry address, and the log lines, all "release-check: ...".
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
name=terraform-provider-kafka
address=registry.terraform.io/kafka-offsets/kafka

log() { printf 'release-check: %s\n' "$*" >&2; }
die() {
  log "FAIL: $*"
  exit 1
}
# took PART START: logs how long PART took since START (a $SECONDS) and, when RELEASE_TIMES names a
# file (check.sh sets it), adds "PART SECONDS" to it for the summary at the end.
took() {
  local s=$((SECONDS - $2))
  log "$1 took $s s"
  if [[ -n ${RELEASE_TIMES:-} ]]; then echo "$1 $s" >>"$RELEASE_TIMES"; fi
}
