#!/usr/bin/env bash
# Runs `terraform validate` on every example configuration that declares the provider
# (examples/demo, examples/gating/*) against a local build, through a dev_overrides CLI
# configuration in a temporary folder. Nothing is written into examples/.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$repo" && go build -o "$work/bin/terraform-provider-kafka" .)
cat >"$work/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "kafka-offsets/kafka" = "$work/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$work/terraformrc"

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
