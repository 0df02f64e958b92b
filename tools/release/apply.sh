#!/usr/bin/env bash
# Step 6 of CI's release check, run by tools/release/install.sh inside `tools/kafka.sh run` (which
# sets KAFKA_BOOTSTRAP_SERVERS and stops the broker whatever happens), or against the cluster
# KAFKA_BOOTSTRAP_SERVERS names: seeds topic "users" (tools/examples/demo, as `make demo` does)
# and runs `terraform plan` and `apply` in DIR with the provider terraform init installed there;
# the offsets must be exact.
#
# Usage: tools/release/apply.sh DIR
set -euo pipefail
# shellcheck source=tools/release/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ $# == 1 ]] || die "usage: $0 DIR"
dir=$1
log "Kafka at $KAFKA_BOOTSTRAP_SERVERS; seeding topic users (tools/examples/demo)"
(cd "$repo" && go run ./tools/examples/demo)
servers_hcl="[\"${KAFKA_BOOTSTRAP_SERVERS//,/\",\"}\"]"
log "terraform plan with the installed provider"
terraform -chdir="$dir" plan -input=false -no-color -var "bootstrap_servers=$servers_hcl"
log "terraform apply with the installed provider"
terraform -chdir="$dir" apply -input=false -no-color -auto-approve -var "bootstrap_servers=$servers_hcl"
# tools/examples/demo/seed.go: partition 0 holds 5 records, 1 none, 2 holds 8 with the first 3
# deleted.
want='{"0":{"earliest":0,"latest":5},"1":{"earliest":0,"latest":0},"2":{"earliest":3,"latest":8}}'
got=$(terraform -chdir="$dir" output -no-color -json users | tr -d ' \n')
[[ $got == "$want" ]] || die "output users = $got, want $want"
log "output users = $got (exact)"
