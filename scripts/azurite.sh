#!/usr/bin/env bash
# Azurite (the Table service only) as a real test server.
#   scripts/azurite.sh install   install the pinned azurite into the tests' cache (npm, once)
#   scripts/azurite.sh start     start it on 127.0.0.1 and a free port; prints `export` lines
#   scripts/azurite.sh stop      stop the server this script started (by its PID)
set -euo pipefail

AZURITE_VERSION=3.37.0
# The same install the test suites use (tablekit-testing's `azurite` module).
cache="${TABLEKIT_CACHE_DIR:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/tablekit}}"
home="${cache:-$HOME/.cache/tablekit}/azurite-$AZURITE_VERSION"
main="$home/node_modules/azurite/dist/src/table/main.js"
pidfile="$home/azurite.pid"

install() {
  if [ -f "$main" ] && grep -q "\"version\": \"$AZURITE_VERSION\"" "$home/node_modules/azurite/package.json"; then
    return
  fi
  mkdir -p "$home"
  (cd "$home" && npm install --no-audit --no-fund --loglevel=error "azurite@$AZURITE_VERSION" >&2)
}

# Node is already required for Azurite, so it also finds the free port (no python needed).
free_port() {
  node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

start() {
  install
  local port work
  port="$(free_port)"
  work="$(mktemp -d)"
  # --inMemoryPersistence cannot be combined with --location, so run inside a scratch folder.
  # --disableTelemetry is required: without it Azurite tries to reach the network.
  (cd "$work" && exec node "$main" --tableHost 127.0.0.1 --tablePort "$port" \
    --inMemoryPersistence --disableTelemetry --skipApiVersionCheck --disableProductStyleUrl \
    --loose --silent >"$work/azurite.log" 2>&1) &
  echo $! >"$pidfile"
  echo "$work" >"$home/azurite.workdir"
  for _ in $(seq 1 600); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "export TABLEKIT_AZURITE_URL=http://127.0.0.1:$port/devstoreaccount1"
      echo "export TABLEKIT_AZURITE_CONNECTION_STRING='DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;TableEndpoint=http://127.0.0.1:$port/devstoreaccount1;'"
      return
    fi
    sleep 0.1
  done
  echo "azurite did not start on port $port; log:" >&2
  cat "$work/azurite.log" >&2 || true
  stop
  exit 1
}

stop() {
  [ -f "$pidfile" ] || return 0
  local pid
  pid="$(cat "$pidfile")"
  kill -INT "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidfile"
  if [ -f "$home/azurite.workdir" ]; then
    rm -rf "$(cat "$home/azurite.workdir")"
    rm -f "$home/azurite.workdir"
  fi
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
