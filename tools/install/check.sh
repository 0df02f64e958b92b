#!/usr/bin/env bash
# CI's check of `make install` (tools/install/install.sh): with HOME a temporary folder and no CLI
# configuration file, `init` installs what make install built, and `plan` runs it, in a root module
# as a team writes one: a module call, the README's "~> MAJOR.MINOR" in the root and ">= MAJOR.MINOR"
# in the child, a local backend. No network and no broker: the plan calls the provider function
# partition_for_key, so each BINARY must have provider functions (Terraform 1.8+, OpenTofu 1.7+).
#
# Usage: tools/install/check.sh BINARY...   (terraform or tofu binaries)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { printf 'install-check: %s\n' "$*" >&2; }
die() { log "FAIL: $*"; exit 1; }
[[ $# -gt 0 ]] || die "usage: $0 BINARY..."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The Go caches stay where they are (a cold build takes minutes); nothing else of HOME is seen.
GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOPATH=$(go env GOPATH)
export GOCACHE GOMODCACHE GOPATH HOME=$work/home CHECKPOINT_DISABLE=1
unset TF_CLI_CONFIG_FILE TERRAFORM_CONFIG TF_PLUGIN_CACHE_DIR TF_CLI_ARGS TF_CLI_ARGS_init TF_CLI_ARGS_plan XDG_DATA_HOME
mkdir -p "$HOME"

make -C "$repo" --no-print-directory install
version=$(sed -nE '1s/^## ([0-9]+\.[0-9]+\.[0-9]+) .*/\1/p' "$repo/CHANGELOG.md")
minor=${version%.*}

mkdir -p "$work/root/modules/child"
cat >"$work/root/main.tf" <<TF
terraform {
  required_providers {
    kafka = {
      source  = "kafka-offsets/kafka"
      version = "~> $minor"
    }
  }
  backend "local" {
    path = "state/terraform.tfstate"
  }
}

provider "kafka" {
  bootstrap_servers = ["127.0.0.1:9"] # never dialled: no data source reads
}

module "child" {
  source = "./modules/child"
  key    = "tenant-42"
}

output "partition" {
  value = module.child.partition
}
TF
cat >"$work/root/modules/child/main.tf" <<TF
terraform {
  required_providers {
    kafka = {
      source  = "kafka-offsets/kafka"
      version = ">= $minor"
    }
  }
}

variable "key" {
  type = string
}

output "partition" {
  value = provider::kafka::partition_for_key(var.key, 12)
}
TF

for bin in "$@"; do
  label=$("$repo/tools/terraform-versions.sh" label "$bin")
  host=registry.terraform.io
  [[ $label == OpenTofu* ]] && host=registry.opentofu.org
  root=$work/${label// /-}
  cp -r "$work/root" "$root"
  "$bin" -chdir="$root" init -input=false -no-color >"$work/init.log" 2>&1 ||
    { cat "$work/init.log"; die "$label: init failed"; }
  grep -qF "Installed kafka-offsets/kafka v$version (unauthenticated)" "$work/init.log" ||
    { cat "$work/init.log"; die "$label: init did not install kafka-offsets/kafka v$version"; }
  grep -qF "provider \"$host/kafka-offsets/kafka\"" "$root/.terraform.lock.hcl" ||
    die "$label: the lock file has no $host/kafka-offsets/kafka"
  "$bin" -chdir="$root" plan -input=false -no-color >"$work/plan.log" 2>&1 ||
    { cat "$work/plan.log"; die "$label: plan failed"; }
  # Kafka's murmur2 partitioner puts key "tenant-42" in partition 2 of 12 (franz-go agrees).
  grep -qE '^ *\+ partition = 2$' "$work/plan.log" || { cat "$work/plan.log"; die "$label: plan lacks partition = 2"; }
  log "$label: init installed kafka-offsets/kafka v$version from $HOME/.terraform.d/plugins/$host, plan ran it"
done
