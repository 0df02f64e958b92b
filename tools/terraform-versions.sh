#!/usr/bin/env bash
# Terraform and OpenTofu binaries of given versions, built from their Go modules (the Go module
# proxy is the only place this machine, a developer's or CI's, can get them; `go install` refuses
# both modules for their replace directives, so: `go mod download`, copy, `go build`).
#
# Usage: tools/terraform-versions.sh COMMAND ...  (NAME: terraform or tofu; VERSION: 1.5.7)
#   path NAME VERSION       build when not cached; print the binary's path
#   build NAME VERSION...   build each (a cached one costs nothing)
#   test NAME VERSION       the Terraform-level tests with that binary on one broker (kafka.sh
#                           run): ./internal/provider but TestChaos*, then
#                           tools/examples/plan-examples.sh
#   tested                  the NAME:VERSION pairs CI tests that way
#   latest NAME             the newest release the proxy serves (its list, then later versions asked by
#                           name; tools/terraform-versions, as at-least)
#   at-least BINARY TF_VERSION TOFU_VERSION   exit 0 if BINARY is Terraform TF_VERSION or
#                           later, or OpenTofu TOFU_VERSION or later
#   label BINARY            its version line: "Terraform v1.5.7", "OpenTofu v1.12.6"
# Binaries are cached in $TF_VERSIONS_CACHE_DIR (default ~/.cache/terraform-provider-kafka/terraform),
# one folder per NAME-VERSION. The Go on PATH builds them (GOTOOLCHAIN=local: no toolchain download).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# What the installation guide (docs/guides/installation.md) names: Terraform 1.5.7 (the last MPL
# release, and the lowest CI tests), OpenTofu 1.6.3 (the newest served patch of 1.6, OpenTofu's first release series) and the
# newest Terraform and OpenTofu releases the proxy serves (latest, below).
tested=(terraform:1.5.7 terraform:1.16.4 tofu:1.6.3 tofu:1.12.6)

cache_root=${TF_VERSIONS_CACHE_DIR:-${HOME:-/tmp}/.cache/terraform-provider-kafka/terraform}
die() { echo "terraform-versions: $*" >&2; exit 1; }
work=
trap 'rm -rf "${work:-/nonexistent}"' EXIT
trap 'exit 1' INT TERM HUP

# module NAME: the Go module; main NAME: its main package inside the module.
module() {
  case $1 in
    terraform) echo github.com/hashicorp/terraform ;;
    tofu) echo github.com/opentofu/opentofu ;;
    *) die "unknown NAME '$1' (terraform or tofu)" ;;
  esac
}
main_pkg() { if [[ $1 == tofu ]]; then echo ./cmd/tofu; else echo .; fi; }

# go_tool ARGS: the version logic that is Go's (tools/terraform-versions/main.go; go tool, unlike
# go run, exits with the program's status).
go_tool() { (cd "$repo" && go tool terraform-versions "$@"); }

# drop_nested SRC: Terraform 1.9 and later keep nine remote-state backends (s3, gcs, azurerm, ...)
# and internal/legacy in nested modules, which a module's zip leaves out, and replace them with
# their folders. Build without them: drop each missing replacement from go.mod, and the backend
# from the list in internal/backend/init/init.go. The tests use the local backend.
drop_nested() {
  local src=$1 init=$1/internal/backend/init/init.go mod path alias
  while read -r mod path; do
    [[ -d $src/$path ]] && continue
    (cd "$src" && go mod edit -dropreplace="$mod" -droprequire="$mod")
    alias=$(sed -nE "s|^\s*([A-Za-z0-9_]+) \"$mod\"\$|\1|p" "$init")
    [[ -z $alias ]] || sed -i -E "\|\"$mod\"\$|d; /\b$alias\.New\(/d" "$init"
  done < <(sed -nE 's/^replace ([^ ]+) => (\.\/[^ ]+)$/\1 \2/p' "$src/go.mod")
}

build() {
  local name=$1 version=${2#v} mod dir bin src start secs
  mod=$(module "$name")
  dir="$cache_root/$name-$version"
  bin="$dir/$name"
  [[ -x $bin ]] && return 0
  mkdir -p "$cache_root"
  # One build per binary at a time: a second caller waits, then finds it built.
  exec 7>"$cache_root/.lock-$name-$version"
  flock -w 1800 7 || die "$cache_root is locked"
  if [[ -x $bin ]]; then exec 7>&-; return 0; fi
  start=$SECONDS
  echo "terraform-versions: building $name $version from $mod (a few minutes)" >&2
  src=$(cd / && GOTOOLCHAIN=local GOFLAGS='' go mod download -json "$mod@v$version" |
    sed -nE 's/^\s*"Dir": "(.*)",?$/\1/p')
  [[ -d $src ]] || die "go mod download $mod@v$version gave no module folder"
  work=$(mktemp -d) # global: the EXIT trap removes it when the build is cut short
  # The module cache is read-only, and go build must write go.sum updates: build in a copy.
  cp -r "$src" "$work/src"
  chmod -R u+w "$work/src"
  [[ $name != terraform ]] || drop_nested "$work/src"
  # -mod=mod: an old go.sum may lack lines today's Go wants; the versions stay those of go.mod.
  # -trimpath and no VCS stamp: the copy is not a git checkout. version.dev=no, as in their release
  # builds: else Terraform 1.13 and OpenTofu call themselves 1.13.3-dev.
  if ! (cd "$work/src" && GOTOOLCHAIN=local GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
    go build -trimpath -ldflags "-X $mod/version.dev=no" -o "$work/$name" "$(main_pkg "$name")") \
    >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log" >&2
    die "building $name $version failed"
  fi
  mkdir -p "$dir"
  mv "$work/$name" "$bin.tmp" && mv "$bin.tmp" "$bin"
  rm -rf "$work"
  work=
  secs=$((SECONDS - start))
  echo "$secs" >"$dir/build-seconds"
  echo "terraform-versions: built $name $version in ${secs}s: $bin" >&2
  exec 7>&-
}

# version_line BINARY: "Terraform v1.5.7" or "OpenTofu v1.10.6" (OpenTofu may print CLI
# configuration warnings before it, on stdout).
version_line() { "$1" version 2>/dev/null | grep -m1 -E '^(Terraform|OpenTofu) v' || true; }

# run_tests NAME VERSION. No -race: make testacc runs the provider's code under it; this is about
# Terraform's side. OpenTofu looks providers up on its own registry: the test framework must say so.
run_tests() {
  local bin host=registry.terraform.io
  build "$1" "$2"
  bin="$cache_root/$1-${2#v}/$1"
  [[ $1 == tofu ]] && host=registry.opentofu.org
  cd "$repo"
  # An empty CLI configuration: OpenTofu prints a warning about a missing one on stdout, where the
  # test framework reads its version, and the tests need nothing from one.
  # ACC_PARALLEL: acceptance tests side by side, as in make testacc (GNUmakefile says why 8).
  # shellcheck disable=SC2016 # the inner bash expands $1 and $2, its arguments
  TF_CLI_CONFIG_FILE=/dev/null TF_ACC=1 TF_ACC_TERRAFORM_PATH=$bin TF_ACC_PROVIDER_HOST=$host \
    ./tools/test/timed.sh "$1 $2: ./internal/provider, every example planned" ./tools/kafka.sh run -- bash -c \
    'go test -count=1 -timeout 30m -parallel "$2" -skip "^(TestChaos|TestAccTieredStorage)" -v ./internal/provider/ && ./tools/examples/plan-examples.sh "$1"' \
    _ "$bin" "${ACC_PARALLEL:-8}"
}

cmd=${1:-}
shift || true
case $cmd in
  path)
    [[ $# == 2 ]] || die "usage: $0 path NAME VERSION"
    build "$1" "$2"
    echo "$cache_root/$1-${2#v}/$1"
    ;;
  build)
    [[ $# -ge 2 ]] || die "usage: $0 build NAME VERSION..."
    name=$1
    shift
    for v in "$@"; do build "$name" "$v"; done
    ;;
  test)
    [[ $# == 2 ]] || die "usage: $0 test NAME VERSION"
    run_tests "$1" "$2"
    ;;
  tested) printf '%s\n' "${tested[@]}" ;;
  latest)
    [[ $# == 1 ]] || die "usage: $0 latest NAME"
    mod=$(module "$1")
    go_tool latest "$mod"
    ;;
  label) version_line "$1" ;;
  at-least)
    [[ $# == 3 ]] || die "usage: $0 at-least BINARY TF_VERSION TOFU_VERSION"
    go_tool at-least "$(version_line "$1")" "$2" "$3"
    ;;
  *) die "usage: $0 path|build|test|tested|latest|at-least|label ... (see the comment at the top)" ;;
esac
