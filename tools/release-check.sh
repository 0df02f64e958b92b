#!/usr/bin/env bash
# CI's release check: the artifacts of `make release-snapshot` are what the Registry wants, the
# signature verifies, and a user's `terraform init` installs the provider from them.
#
#  1. makes a throwaway GPG key (no passphrase) in a temporary GNUPGHOME;
#  2. `make release-snapshot` with GPG_FINGERPRINT naming it: dist/ gets the 10 zips, SHA256SUMS,
#     its detached signature and the manifest (goreleaser's own signs section does the signing);
#  3. checks the file names, every checksum, that gpg verifies the signature (and rejects it for
#     a changed SHA256SUMS);
#  4. and 5. tools/release-install.sh: installs the linux_amd64 zip with `terraform init` from a
#     filesystem mirror (and checks the lock file's hashes), then applies the demo with it against
#     a real broker.
# Nothing outside dist/ and a temporary folder is written; the key dies with the folder.
#
# Usage: tools/release-check.sh       (step 5 starts its own broker, unless
#                                      KAFKA_BOOTSTRAP_SERVERS names a cluster to use)
set -euo pipefail

# shellcheck source=tools/release-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/release-lib.sh"

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

# 4. and 5. The install from a mirror and the apply, in a temporary folder of their own.
"$repo/tools/release-install.sh" "$dist" "$version"
log "ok: $version signed, verified, installed by terraform init from a mirror, applied ($SECONDS s)"
