#!/usr/bin/env bash
# Builds the library crates (default features) with the oldest Rust the workspace declares
# (`rust-version`), on Debian's packaged compiler (`rustc-web`, `cargo-web`: Rust 1.85).
#
# The dependency versions are the ones cargo's MSRV-aware resolver picks for that Rust
# (`incompatible-rust-versions = "fallback"`, the default of resolver 3), resolved afresh in a
# scratch copy: the committed Cargo.lock is for the pinned newer toolchain and stays as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

msrv="$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)"
old_cargo=/usr/bin/cargo
if ! "$old_cargo" --version 2>/dev/null | grep -q "^cargo $msrv"; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  # Debian's security archive carries a newer Rust than its main archive: the version is named,
  # and the three packages that pin one another are installed (or downgraded) together.
  version="$(apt-cache madison rustc-web | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
    grep "^$msrv\." | head -1 || true)"
  [ -n "$version" ] || {
    echo "no Debian package of Rust $msrv: $(apt-cache madison rustc-web)" >&2
    exit 1
  }
  $sudo apt-get install -y -qq --allow-downgrades \
    "rustc-web=$version" "cargo-web=$version" "libstd-rust-web-dev=$version" >/dev/null
fi
"$old_cargo" --version | grep -q "^cargo $msrv" || {
  echo "the packaged cargo is not $msrv: $("$old_cargo" --version)" >&2
  exit 1
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Tracked files only: no target directory, no local state.
git ls-files -z | xargs -0 cp --parents -P -t "$work"
cd "$work"
# Not the pinned toolchain, not its lockfile.
rm -f rust-toolchain.toml Cargo.lock
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
export CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback
export CARGO_TARGET_DIR="${MSRV_TARGET_DIR:-$work/target}"
"$old_cargo" generate-lockfile
"$old_cargo" build --locked -p tablekit -p tablekit-derive -p tablekit-rules
echo "tablekit, tablekit-derive and tablekit-rules build with Rust $msrv" >&2
