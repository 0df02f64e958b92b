# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this
# What tools/release-check.sh, release-install.sh and release-apply.sh share (sourced, not run):
# the provider's file name and Registry address, and the log lines, all "release-check: ...".
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=terraform-provider-kafka
address=registry.terraform.io/kafka-offsets/kafka

log() { printf 'release-check: %s\n' "$*" >&2; }
die() {
  log "FAIL: $*"
  exit 1
}
