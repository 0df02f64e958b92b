#!/usr/bin/env bash
# make demo: plan examples/demo against a real Kafka broker with a local build of the provider.
#
# Starts the local broker (tools/kafka.sh), unless KAFKA_BOOTSTRAP_SERVERS names a cluster to use;
# seeds topic "users" (3 partitions, one trimmed by DeleteRecords; an existing "users" is left as
# it is); builds the provider; points Terraform at the build with a dev_overrides CLI
# configuration in a temporary folder (never your ~/.terraformrc); runs `terraform plan`, whose
# outputs print the offsets; stops the broker it started.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
started_broker=0

cleanup() {
  local rc=$?
  if [[ $started_broker == 1 ]]; then "$repo/tools/kafka.sh" stop || true; fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT INT TERM

if [[ -z ${KAFKA_BOOTSTRAP_SERVERS:-} ]]; then
  KAFKA_BOOTSTRAP_SERVERS=$("$repo/tools/kafka.sh" start)
  started_broker=1
fi
export KAFKA_BOOTSTRAP_SERVERS
echo "demo: Kafka at $KAFKA_BOOTSTRAP_SERVERS" >&2

(cd "$repo" && go run ./tools/demo)

echo "demo: building the provider" >&2
(cd "$repo" && go build -o "$work/bin/terraform-provider-kafka" .)

# dev_overrides makes Terraform use the build in $work/bin for our source address, without init.
cat >"$work/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "kafka-offsets/kafka" = "$work/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$work/terraformrc"
cp "$repo/examples/demo/main.tf" "$work/"

# The list variable in HCL: ["a:1","b:2"].
servers_hcl="[\"${KAFKA_BOOTSTRAP_SERVERS//,/\",\"}\"]"
echo "demo: terraform plan (examples/demo/main.tf)" >&2
terraform -chdir="$work" plan -input=false -var "bootstrap_servers=$servers_hcl"
