#!/usr/bin/env bash
# make demo: plan examples/demo against a real Kafka broker with a local build of the provider.
#
# Starts the local broker (tools/kafka.sh), unless KAFKA_BOOTSTRAP_SERVERS names a cluster to use;
# seeds topic "users" (3 partitions, one trimmed by DeleteRecords; an existing "users" is left as
# it is); builds the provider; points Terraform at the build with a dev_overrides CLI
# configuration in a temporary folder (never your ~/.terraformrc); runs `terraform plan`, whose
# outputs print the offsets; stops the broker it started.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# No cluster given: run this script again inside `kafka.sh run`, which starts a broker of its own
# (beside any from `make kafka-up`), sets KAFKA_BOOTSTRAP_SERVERS and always stops it.
if [[ -z ${KAFKA_BOOTSTRAP_SERVERS:-} ]]; then
  exec "$repo/tools/kafka.sh" run -- "${BASH_SOURCE[0]}" "$@"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "demo: Kafka at $KAFKA_BOOTSTRAP_SERVERS" >&2

(cd "$repo" && go run ./tools/examples/demo)

echo "demo: building the provider" >&2
# shellcheck source=tools/examples/dev-overrides.sh
source "$repo/tools/examples/dev-overrides.sh"
use_local_build "$work"
cp "$repo/examples/demo/main.tf" "$work/"

# The list variable in HCL: ["a:1","b:2"].
servers_hcl="[\"${KAFKA_BOOTSTRAP_SERVERS//,/\",\"}\"]"
echo "demo: terraform plan (examples/demo/main.tf)" >&2
color=()
[[ -t 1 ]] || color=(-no-color)
terraform -chdir="$work" plan -input=false "${color[@]}" -var "bootstrap_servers=$servers_hcl"
cat >&2 <<'TXT'
demo: "users" above maps each partition to its earliest offset (the log start offset: partition 2
demo: was trimmed with DeleteRecords before offset 3) and its latest offset (the high watermark,
demo: the offset the next record gets). Partition 1 was never written: earliest == latest == 0.
TXT
