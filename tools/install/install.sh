#!/usr/bin/env bash
# make install: builds the provider for this machine with a plain release version and puts it
# where `terraform init` and `tofu init` find it with no CLI configuration at all: the implied local
# mirror directory ~/.terraform.d/plugins (%APPDATA%/terraform.d/plugins on Windows), in the
# unpacked layout HOST/kafka-offsets/kafka/VERSION/OS_ARCH/terraform-provider-kafka_vVERSION, under
# both registry hosts: Terraform reads kafka-offsets/kafka as registry.terraform.io/kafka-offsets/kafka,
# OpenTofu as registry.opentofu.org/kafka-offsets/kafka, and both search that directory.
#
# The version is the next release's (CHANGELOG.md's first heading, "## 0.1.0 (Unreleased)"): a
# prerelease such as 0.1.0-dev is only ever selected by an exact constraint ("= 0.1.0-dev"), so
# "~> 0.1" in a root module and ">= 0.1" in a child module would both reject it.
#
# Usage: tools/install/install.sh [VERSION]   (VERSION: x.y.z; default: the next release's)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
die() { echo "install: $*" >&2; exit 1; }

version=${1:-$(sed -nE '1s/^## ([0-9]+\.[0-9]+\.[0-9]+) .*/\1/p' "$repo/CHANGELOG.md")}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
  die "version '$version' is not x.y.z (CHANGELOG.md's first line should read '## x.y.z (Unreleased)'): a prerelease is selected only by an exact version constraint"
goos=$(go env GOOS) goarch=$(go env GOARCH)
exe=
plugins=${HOME:?}/.terraform.d/plugins
if [[ $goos == windows ]]; then
  exe=.exe
  plugins=${APPDATA:?}/terraform.d/plugins
fi
bin=terraform-provider-kafka_v$version$exe

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# No -trimpath, unlike a release build: without it this build shares the Go build cache of go test.
(cd "$repo" && go build -ldflags "-X main.version=$version" -o "$work/$bin" .)
for host in registry.terraform.io registry.opentofu.org; do
  dir=$plugins/$host/kafka-offsets/kafka/$version/${goos}_$goarch
  mkdir -p "$dir"
  # Replaced, not written over: a terraform plan may be running the old file.
  cp "$work/$bin" "$dir/$bin.tmp" && mv "$dir/$bin.tmp" "$dir/$bin"
  echo "install: $dir/$bin"
done
echo "install: kafka-offsets/kafka $version for ${goos}_$goarch: terraform init (tofu init) installs it from there." \
  "A root module whose .terraform.lock.hcl holds an earlier build of $version: delete its kafka-offsets/kafka entry, then init."
