#!/usr/bin/env bash
# Runs `terraform validate` on the example configurations against a local build, through a
# dev_overrides CLI configuration in a temporary folder: examples/demo, the gating recipes
# (examples/gating/*), and the data sources' pages' examples (examples/data-sources/*: their gate.tf
# and data-source.tf, each on its own, as a reader copies it, and together, as
# plan-examples.sh plans them). The pages' snippets leave out the terraform block: it is added here.
# Nothing is written into examples/.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=tools/examples/dev-overrides.sh
source "$repo/tools/examples/dev-overrides.sh"
use_local_build "$work"

failed=0
# validate NAME FILE...: terraform validate on FILE... copied into a folder of their own.
validate() {
  local name=$1 dir="$work/$1"
  shift
  mkdir -p "$dir"
  cp "$@" "$dir/"
  if ! grep -q required_providers "$dir"/*.tf; then
    printf 'terraform {\n  required_providers {\n    kafka = { source = "kafka-offsets/kafka" }\n  }\n}\n' >"$dir/zz_required_providers.tf"
  fi
  local out
  if out=$(terraform -chdir="$dir" validate -no-color 2>&1); then
    echo "valid: $name"
  else
    echo "INVALID: $name" >&2
    echo "$out" >&2
    failed=1
  fi
}

for dir in "$repo"/examples/demo "$repo"/examples/gating/*/; do
  name=${dir#"$repo"/}
  validate "${name%/}" "$dir"/*.tf
done
for dir in "$repo"/examples/data-sources/*/; do
  name=${dir#"$repo"/}
  name=${name%/}
  files=("$dir"*.tf)
  for f in "${files[@]}"; do
    validate "$name/$(basename "$f")" "$f"
  done
  if [[ ${#files[@]} -gt 1 ]]; then
    validate "$name (all files)" "${files[@]}"
  fi
done
exit $failed
