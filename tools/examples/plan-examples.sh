#!/usr/bin/env bash
# Plans every documented example as pasted (examples/demo, examples/provider,
# examples/data-sources/*, examples/functions/*, examples/gating/*: the docs' examples and the
# gating guide's recipes; and the README's Usage block) with
# each Terraform or OpenTofu binary given, against a real broker, through a local build and a
# dev_overrides CLI configuration (tools/examples/dev-overrides.sh). This is how the installation
# guide's lower bound was found; CI runs it on every version it tests.
#
# Usage: tools/examples/plan-examples.sh BINARY...
#
# Starts a broker (tools/kafka.sh run) unless KAFKA_BOOTSTRAP_SERVERS names one, and seeds what the
# examples read (tools/examples/plan-examples/seed.go). An example that needs a newer binary
# (needs_newer below) is skipped there, saying why. Prints one line per example and binary and a
# count per binary; exits 1 if any plan failed.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: $0 BINARY..." >&2; exit 2; }
if [[ -z ${KAFKA_BOOTSTRAP_SERVERS:-} ]]; then
  exec "$repo/tools/kafka.sh" run -- "${BASH_SOURCE[0]}" "$@"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$repo" && go run ./tools/examples/demo && go run ./tools/examples/plan-examples)
# shellcheck source=tools/examples/dev-overrides.sh
source "$repo/tools/examples/dev-overrides.sh"
use_local_build "$work"
export TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
export TF_VAR_release=v2 # rollout-precondition's required variable

# needs_newer BINARY DIR: prints why the example in DIR cannot plan with BINARY, if it cannot.
needs_newer() {
  local at_least="$repo/tools/terraform-versions.sh at-least $1"
  if grep -q 'provider::' "$2"/*.tf && ! $at_least 1.8.0 1.7.0; then
    echo "calls a provider function (Terraform 1.8+, OpenTofu 1.7+)"
  elif grep -q 'plantimestamp()' "$2"/*.tf && ! $at_least 1.10.0 1.9.1; then
    # Before these, plantimestamp() is 0001-01-01T00:00:00Z while Terraform validates, not unknown,
    # and the provider refuses a timestamp before the epoch.
    echo "passes plantimestamp() to a data source (Terraform 1.10+, OpenTofu 1.9.1+)"
  else
    return 1
  fi
}

# The README's Usage block, as a user pastes it into an empty directory, its localhost:9092 the
# test broker's address.
mkdir -p "$work/readme-usage"
awk '/^## Usage/ { usage = 1 } usage && /^```hcl/ { block = 1; next } block && /^```/ { exit } block' \
  "$repo/README.md" | sed "s/\"localhost:9092\"/\"${KAFKA_BOOTSTRAP_SERVERS%%,*}\"/" >"$work/readme-usage/main.tf"
[[ -s $work/readme-usage/main.tf ]] || { echo "plan-examples: README.md has no hcl block under ## Usage" >&2; exit 1; }

failed_any=0
for bin in "$@"; do
  label=$("$repo/tools/terraform-versions.sh" label "$bin")
  passed=0 failed=0 skipped=0
  for dir in "$repo"/examples/demo "$repo"/examples/provider "$repo"/examples/data-sources/*/ \
    "$repo"/examples/functions/*/ "$repo"/examples/gating/*/ "$work/readme-usage"; do
    name=${dir#"$repo"/examples/}
    name=${name#"$work"/}
    name=${name%/}
    if why=$(needs_newer "$bin" "$dir"); then
      echo "skip: $label: $name: $why"
      skipped=$((skipped + 1))
      continue
    fi
    tmp="$work/plan/$name"
    rm -rf "$tmp" && mkdir -p "$tmp"
    # As pasted: an example without its terraform block would ask for hashicorp/kafka, and fail.
    cp "$dir"/*.tf "$tmp/"
    if out=$("$bin" -chdir="$tmp" plan -input=false -no-color 2>&1); then
      echo "ok:   $label: $name"
      passed=$((passed + 1))
    else
      echo "FAIL: $label: $name" >&2
      sed 's/^/      /' <<<"$out" >&2
      failed=$((failed + 1))
    fi
  done
  echo "examples planned with $label: $passed passed, $failed failed, $skipped skipped"
  [[ $failed == 0 ]] || failed_any=1
done
exit $failed_any
