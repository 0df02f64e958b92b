#!/usr/bin/env bash
# Runs `terraform validate` on every example configuration that declares the provider
# (examples/demo, examples/gating/*) against a local build, through a dev_overrides CLI
# configuration in a temporary folder. Nothing is written into examples/.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=tools/examples/dev-overrides.sh
source "$repo/tools/examples/dev-overrides.sh"
use_local_build "$work"

failed=0
for dir in "$repo"/examples/demo "$repo"/examples/gating/*/; do
  name=${dir#"$repo"/}
  name=${name%/}
  mkdir -p "$work/$name"
  cp "$dir"/*.tf "$work/$name/"
  if out=$(terraform -chdir="$work/$name" validate -no-color 2>&1); then
    echo "valid: $name"
  else
    echo "INVALID: $name" >&2
    echo "$out" >&2
    failed=1
  fi
done
exit $failed
