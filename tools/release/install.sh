#!/usr/bin/env bash
# Steps 5 and 6 of CI's release check (tools/release/check.sh, which calls this after it checked
# the names, checksums and signature of dist/): a user's `terraform init` installs the provider
# from the snapshot, and the installed provider reads exact offsets from a real broker.
#
#  5. puts the linux_amd64 zip into a filesystem mirror (packed layout) and runs `terraform init`
#     on examples/demo with a CLI configuration that installs from that mirror only and an exact
#     version constraint, no dev_overrides: once without a lock file (Terraform writes one with
#     the "h1:" hash of what it unpacked), then with a lock file holding the zip's "zh:" hash from
#     SHA256SUMS, as a team's committed lock file does: init must pass, and fail for a wrong hash;
#  6. tools/release/apply.sh on a real broker (tools/kafka.sh): `terraform plan` and `apply` with
#     the installed provider; the offsets must be exact.
# Nothing outside a temporary folder is written.
#
# Usage: tools/release/install.sh DIST VERSION   (DIST: the checked dist/ folder; starts its own
#                                                 broker for step 6, unless KAFKA_BOOTSTRAP_SERVERS
#                                                 names a cluster to use)
set -euo pipefail

# shellcheck source=tools/release/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ $# == 2 ]] || die "usage: $0 DIST VERSION"
dist=$1 version=$2
sums="$dist/${name}_${version}_SHA256SUMS"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 5. A filesystem mirror in the packed layout, as `terraform providers mirror` writes it.
start=$SECONDS
zip="${name}_${version}_linux_amd64.zip"
mkdir -p "$work/mirror/$address" "$work/demo"
cp "$dist/$zip" "$work/mirror/$address/"
cat >"$work/terraformrc" <<RC
provider_installation {
  filesystem_mirror {
    path    = "$work/mirror"
    include = ["$address"]
  }
}
RC
export TF_CLI_CONFIG_FILE="$work/terraformrc"
unset TF_PLUGIN_CACHE_DIR
cp "$repo/examples/demo/main.tf" "$work/demo/"
# An override file pins the exact version (a prerelease is only ever selected by an exact one).
cat >"$work/demo/version_override.tf" <<TF
terraform {
  required_providers {
    kafka = {
      source  = "kafka-offsets/kafka"
      version = "= $version"
    }
  }
}
TF
lock="$work/demo/.terraform.lock.hcl"
# tf_init DESCRIPTION: a fresh `terraform init` in $work/demo (keeping a lock file written before).
tf_init() {
  log "terraform init from the filesystem mirror: $1"
  rm -rf "$work/demo/.terraform"
  terraform -chdir="$work/demo" init -input=false -no-color >"$work/init.log" 2>&1
}
# write_lock HASH: a lock file as a team commits it, with the zip's hash from the Registry's
# (here: our signed) SHA256SUMS.
write_lock() {
  cat >"$lock" <<HCL
provider "$address" {
  version     = "$version"
  constraints = "$version"
  hashes = [
    "$1",
  ]
}
HCL
}

# a) No lock file: terraform init installs from the mirror and writes one. From a mirror Terraform
#    can only hash what it unpacked ("h1:"); the zip's own "zh:" hash comes from SHA256SUMS.
rm -f "$lock"
tf_init "no lock file" || { cat "$work/init.log"; die "terraform init failed"; }
cat "$work/init.log"
grep -qF "Installed kafka-offsets/kafka v$version (unauthenticated)" "$work/init.log" ||
  die "terraform init did not install kafka-offsets/kafka v$version from the mirror"
if grep -qi 'development overrides' "$work/init.log"; then die "terraform init used dev_overrides"; fi
grep -qE "^  version += \"$version\"\$" "$lock" || die "$lock does not record version $version"
h1=$(grep -oE '"h1:[^"]+"' "$lock") || die "$lock has no h1: hash"
[[ $(wc -l <<<"$h1") == 1 ]] || die "$lock has more than one h1: hash: $h1"

# b) The lock file holds the zip's hash as the signed SHA256SUMS gives it: terraform init checks
#    the zip against it. A wrong hash must stop it...
zh="zh:$(awk -v f="$zip" '$2 == f { print $1 }' "$sums")"
[[ $zh =~ ^zh:[0-9a-f]{64}$ ]] || die "no hash for $zip in ${sums##*/}"
write_lock "zh:$(printf '0%.0s' {1..64})"
if tf_init "a lock file with a wrong zh: hash (must fail)"; then
  die "terraform init accepted the zip against a wrong zh: hash in the lock file"
fi
grep -qF "doesn't match any of the checksums previously recorded" "$work/init.log" ||
  { cat "$work/init.log"; die "terraform init failed for another reason than the checksum"; }
# ...and the right one must pass, the lock file then holding both hashes.
write_lock "$zh"
tf_init "a lock file with the zip's $zh" || { cat "$work/init.log"; die "terraform init failed"; }
cat "$work/init.log"
grep -qF "\"$zh\"" "$lock" || die "$lock lacks the zip's hash $zh"
grep -qF "$h1" "$lock" || die "$lock lacks $h1, the hash of the first install"
log "lock file: version $version, $zh (the zip, checked by terraform init), $h1"
cat "$lock"

# The installed binary is the goreleaser build: CGO off, -trimpath (go version -m reads the build
# settings; it omits -ldflags under -trimpath), and the version stamped in by -X main.version.
bin="$work/demo/.terraform/providers/$address/$version/linux_amd64/${name}_v$version"
[[ -x $bin ]] || die "terraform init did not unpack $bin"
buildinfo=$(go version -m "$bin")
for want in "CGO_ENABLED=0" "-trimpath=true"; do
  grep -qF -- "$want" <<<"$buildinfo" || die "$bin was not built with $want"
done
grep -qaF -- "$version" "$bin" || die "$bin does not contain its version $version (-X main.version)"
log "installed binary: ${bin##*/}, CGO_ENABLED=0, -trimpath, version $version stamped in"

took install "$start"

# 6. The demo against a real broker, with the provider terraform init installed.
start=$SECONDS
if [[ -n ${KAFKA_BOOTSTRAP_SERVERS:-} ]]; then
  "$repo/tools/release/apply.sh" "$work/demo"
  took apply "$start"
else
  "$repo/tools/kafka.sh" run -- "$repo/tools/release/apply.sh" "$work/demo"
  took "apply (broker start and stop included)" "$start"
fi
