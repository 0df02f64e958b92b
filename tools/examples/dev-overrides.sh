# shellcheck shell=bash
# Sourced by the scripts of tools/examples (bash): use_local_build DIR builds the
# provider into DIR/bin and points Terraform at it with a dev_overrides CLI configuration in DIR,
# so plan and validate use the build without `terraform init`, and the user's own CLI
# configuration is left alone.
use_local_build() {
  local dir=$1 repo
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  (cd "$repo" && go build -o "$dir/bin/terraform-provider-kafka" .)
  cat >"$dir/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "kafka-offsets/kafka" = "$dir/bin"
  }
  direct {}
}
RC
  export TF_CLI_CONFIG_FILE="$dir/terraformrc"
}
