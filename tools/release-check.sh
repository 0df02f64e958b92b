#!/usr/bin/env bash
# CI's release check: the artifacts of `make release-snapshot` are what the Registry wants, the
# signature verifies, and a user's `terraform init` installs the provider from them.
#
#  1. makes a throwaway GPG key (no passphrase) in a temporary GNUPGHOME;
#  2. `make release-snapshot` with GPG_FINGERPRINT naming it: dist/ gets the 10 zips, SHA256SUMS,
#     its detached signature and the manifest (goreleaser's own signs section does the signing);
#  3. checks the file names, every checksum, that gpg verifies the signature (and rejects it for
#     a changed SHA256SUMS);
#  4. puts the linux_amd64 zip into a filesystem mirror (packed layout) and runs `terraform init`
#     on examples/demo with a CLI configuration that installs from that mirror only and an exact
#     version constraint, no dev_overrides: once without a lock file (Terraform writes one with
#     the "h1:" hash of what it unpacked), then with a lock file holding the zip's "zh:" hash from
#     SHA256SUMS, as a team's committed lock file does: init must pass, and fail for a wrong hash;
#  5. seeds topic "users" on a real broker (tools/kafka.sh, as `make demo` does) and runs
#     `terraform plan` and `apply` with the installed provider; the offsets must be exact.
# Nothing outside dist/ and a temporary folder is written; the key dies with the folder.
#
# Usage: tools/release-check.sh       (starts its own broker for step 5, unless
#                                      KAFKA_BOOTSTRAP_SERVERS names a cluster to use)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=terraform-provider-kafka
address=registry.terraform.io/kafka-offsets/kafka

log() { printf 'release-check: %s\n' "$*" >&2; }
die() {
  log "FAIL: $*"
  exit 1
}

# Step 5 alone, run by step 4 inside `tools/kafka.sh run` (which sets KAFKA_BOOTSTRAP_SERVERS and
# stops the broker whatever happens): release-check.sh --apply DIR.
apply_demo() {
  local dir=$1 servers_hcl got want
  log "Kafka at $KAFKA_BOOTSTRAP_SERVERS; seeding topic users (tools/demo)"
  (cd "$repo" && go run ./tools/demo)
  servers_hcl="[\"${KAFKA_BOOTSTRAP_SERVERS//,/\",\"}\"]"
  log "terraform plan with the installed provider"
  terraform -chdir="$dir" plan -input=false -no-color -var "bootstrap_servers=$servers_hcl"
  log "terraform apply with the installed provider"
  terraform -chdir="$dir" apply -input=false -no-color -auto-approve -var "bootstrap_servers=$servers_hcl"
  # tools/demo/seed.go: partition 0 holds 5 records, 1 none, 2 holds 8 with the first 3 deleted.
  want='{"0":{"earliest":0,"latest":5},"1":{"earliest":0,"latest":0},"2":{"earliest":3,"latest":8}}'
  got=$(terraform -chdir="$dir" output -no-color -json users | tr -d ' \n')
  [[ $got == "$want" ]] || die "output users = $got, want $want"
  log "output users = $got (exact)"
}

if [[ ${1:-} == --apply ]]; then
  apply_demo "$2"
  exit 0
fi

for cmd in gpg terraform sha256sum; do
  command -v "$cmd" >/dev/null || die "$cmd is not on PATH (.ci/run installs gnupg from Debian)"
done

work=$(mktemp -d)
export GNUPGHOME="$work/gnupg"
cleanup() {
  gpgconf --kill gpg-agent 2>/dev/null || true # the agent gpg started for the throwaway keyring
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -m 700 "$GNUPGHOME"

# 1. The key. RSA as the Registry asks for; valid for one day; never leaves $work.
log "throwaway GPG key in $GNUPGHOME"
gpg --batch --quiet --passphrase '' \
  --quick-gen-key "$name release check (throwaway) <release-check@invalid>" rsa3072 sign 1d
GPG_FINGERPRINT=$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
[[ -n $GPG_FINGERPRINT ]] || die "no fingerprint for the throwaway key"
export GPG_FINGERPRINT

# 2. The snapshot, signed by goreleaser's signs section.
log "make release-snapshot (GPG_FINGERPRINT=$GPG_FINGERPRINT)"
start=$SECONDS
make -C "$repo" release-snapshot
log "make release-snapshot took $((SECONDS - start)) s"

# 3. Names, checksums, signature.
dist="$repo/dist"
found=("$dist"/"$name"_*_SHA256SUMS)
[[ ${#found[@]} == 1 && -f ${found[0]} ]] || die "want one ${name}_*_SHA256SUMS in dist/, got: ${found[*]}"
sums=${found[0]}
version=${sums##*/"$name"_}
version=${version%_SHA256SUMS}
log "version $version"
want_files=("${name}_${version}_manifest.json" "${name}_${version}_SHA256SUMS.sig")
for platform in linux_amd64 linux_arm64 linux_386 linux_arm darwin_amd64 darwin_arm64 \
  windows_amd64 windows_arm64 freebsd_amd64 freebsd_arm64; do
  want_files+=("${name}_${version}_${platform}.zip")
done
for f in "${want_files[@]}"; do
  [[ -f $dist/$f ]] || die "dist/$f is missing"
done
# Every zip and the manifest are listed, and nothing else: 11 lines.
[[ $(wc -l <"$sums") == 11 ]] || die "$sums has $(wc -l <"$sums") lines, want 10 zips + manifest"
(cd "$dist" && sha256sum --check --strict "${sums##*/}") || die "a checksum in ${sums##*/} does not match"
cmp -s "$repo/terraform-registry-manifest.json" "$dist/${name}_${version}_manifest.json" ||
  die "the manifest in dist/ differs from terraform-registry-manifest.json"

status=$(gpg --batch --status-fd 1 --verify "$sums.sig" "$sums" 2>/dev/null) ||
  die "gpg --verify failed for ${sums##*/}.sig"
grep -q "^\[GNUPG:\] VALIDSIG $GPG_FINGERPRINT " <<<"$status" ||
  die "the signature is not a valid one by $GPG_FINGERPRINT: $status"
log "gpg: good signature on ${sums##*/} by $GPG_FINGERPRINT"
# A signature that verifies anything proves nothing: a changed SHA256SUMS must fail.
{ cat "$sums"; echo; } >"$work/tampered"
if gpg --batch --verify "$sums.sig" "$work/tampered" 2>/dev/null; then
  die "gpg verified the signature against a changed SHA256SUMS"
fi
ls -l "$dist"/"$name"_"$version"_*

# 4. A filesystem mirror in the packed layout, as `terraform providers mirror` writes it.
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

# 5. The demo against a real broker, with the provider terraform init installed.
if [[ -n ${KAFKA_BOOTSTRAP_SERVERS:-} ]]; then
  apply_demo "$work/demo"
else
  "$repo/tools/kafka.sh" run -- "$repo/tools/release-check.sh" --apply "$work/demo"
fi
log "ok: $version signed, verified, installed by terraform init from a mirror, applied ($SECONDS s)"
