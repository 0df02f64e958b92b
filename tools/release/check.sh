#!/usr/bin/env bash
# CI's release check: the artifacts of `make release-snapshot` are what the Registry wants, the
# signature verifies, a user's `terraform init` installs the provider from them, and the provider
# compiles for every platform a release ships. CI builds only this machine's platform
# (linux_amd64, the one it installs): ten goreleaser builds took about 15 minutes on its 2 cores.
# The release workflow (.github/workflows/release.yml) still builds all ten.
#
#  1. makes a throwaway GPG key (no passphrase) in a temporary GNUPGHOME;
#  2. `make release-snapshot RELEASE_TARGETS=host` with GPG_FINGERPRINT naming it: dist/ gets the
#     linux_amd64 zip, SHA256SUMS, its detached signature and the manifest (goreleaser's own
#     signs section does the signing);
#  3. checks the file names, every checksum, that gpg verifies the signature (and rejects it for
#     a changed SHA256SUMS);
#  4. type-checks the provider for the nine other platforms of .goreleaser.yml's builds[0].targets
#     (tools/release/crosscheck, from source with go/packages: build constraints, undefined
#     symbols, type errors and 32-bit int overflows for each GOOS/GOARCH; not linking, nor
#     assembly). On 2 busy cores: 25 to 70 s, with or without a Go build cache. Nine `go build`s:
#     15 minutes with a cold cache (a Dependabot bump, a fresh runner), 25 s warm, 2.8 GB of
#     cache; nine `go vet`s: 13 minutes cold, 10 s warm;
#  5. and 6. tools/release/install.sh: installs the linux_amd64 zip with `terraform init` from a
#     filesystem mirror (and checks the lock file's hashes), then applies the demo with it against
#     a real broker.
# It prints how long each part took. Nothing outside dist/ and a temporary folder is written; the
# key dies with the folder.
#
# Usage: tools/release/check.sh       (step 6 starts its own broker, unless
#                                      KAFKA_BOOTSTRAP_SERVERS names a cluster to use)
set -euo pipefail

# shellcheck source=tools/release/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for cmd in gpg terraform sha256sum; do
  command -v "$cmd" >/dev/null || die "$cmd is not on PATH (.ci/run installs gnupg from Debian)"
done
# The one platform built is the one installed (tools/release/install.sh).
host=$(go env GOOS)_$(go env GOARCH)
[[ $host == linux_amd64 ]] || die "the release check installs a linux_amd64 build, and this is $host"

work=$(mktemp -d)
export GNUPGHOME="$work/gnupg"
# Each part's time, "PART SECONDS" a line (lib.sh's took; install.sh adds its own).
export RELEASE_TIMES="$work/times"
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

# 2. The snapshot for linux_amd64, signed by goreleaser's signs section.
log "make release-snapshot RELEASE_TARGETS=host (GPG_FINGERPRINT=$GPG_FINGERPRINT)"
start=$SECONDS
make -C "$repo" release-snapshot RELEASE_TARGETS=host
took "snapshot build" "$start"

# 3. Names, checksums, signature.
dist="$repo/dist"
found=("$dist"/"$name"_*_SHA256SUMS)
[[ ${#found[@]} == 1 && -f ${found[0]} ]] || die "want one ${name}_*_SHA256SUMS in dist/, got: ${found[*]}"
sums=${found[0]}
version=${sums##*/"$name"_}
version=${version%_SHA256SUMS}
log "version $version"
for f in "${name}_${version}_manifest.json" "${name}_${version}_SHA256SUMS.sig" "${name}_${version}_$host.zip"; do
  [[ -f $dist/$f ]] || die "dist/$f is missing"
done
zips=("$dist"/*.zip)
[[ ${#zips[@]} == 1 ]] || die "want only the $host zip in dist/, got: ${zips[*]}"
# The zip and the manifest are listed, and nothing else: 2 lines.
[[ $(wc -l <"$sums") == 2 ]] || die "$sums has $(wc -l <"$sums") lines, want the $host zip + manifest"
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

# 4. The other platforms compile: type-checked from source for each GOOS/GOARCH.
log "type-check for every target of .goreleaser.yml but $host (tools/release/crosscheck)"
start=$SECONDS
(cd "$repo" && go run ./tools/release/crosscheck -skip "$host") || die "the provider does not compile for every platform"
took "compile check" "$start"

# 5. and 6. The install from a mirror and the apply, in a temporary folder of their own.
"$repo/tools/release/install.sh" "$dist" "$version"
log "ok: $version signed, verified, installed by terraform init from a mirror, applied;" \
  "the other platforms type-checked ($SECONDS s)"
log "times (s): $(awk '{ printf "%s%s", sep, $0; sep = ", " }' "$RELEASE_TIMES")"
