#!/usr/bin/env bash
# Runs every test: unit, integration (on the in-process emulator and on Azurite), UI and doc tests.
# Installs what it needs (the pinned Azurite, through npm) on first use.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/azurite.sh install
eval "$(scripts/azurite.sh start)"
trap 'scripts/azurite.sh stop' EXIT

cargo test --workspace --all-targets --no-fail-fast
cargo test --workspace --doc --no-fail-fast
