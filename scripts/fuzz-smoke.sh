#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time (a CI smoke run; long runs locally).
#   scripts/fuzz-smoke.sh [SECONDS_PER_TARGET] [TARGET...]   default 30 s, all targets
# Needs the nightly toolchain; installs cargo-fuzz when it is missing. Corpora go to
# fuzz/corpus/TARGET, crashes to fuzz/artifacts/TARGET (both ignored by git).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-30}"
shift || true

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi

cd "$root/fuzz"
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

for target in "${targets[@]}"; do
  echo "== $target: ${seconds}s" >&2
  mkdir -p "corpus/$target"
  # One job at a time: CI machines have 2 cores. -rss_limit_mb guards against runaway inputs.
  cargo +nightly fuzz run "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 2>&1 |
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)|SUMMARY|panicked|ERROR' || true
  if [ -n "$(ls -A "artifacts/$target" 2>/dev/null)" ]; then
    echo "!! $target found crashes in fuzz/artifacts/$target" >&2
    exit 1
  fi
done
