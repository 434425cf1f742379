#!/usr/bin/env bash
# Installs the servers that local runs and tests start themselves (Redis, NATS,
# a MongoDB-wire server) when no Docker engine is around. Safe to re-run: each
# step checks first and only acts when something is missing or outdated.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${AFF_INFRA_HOME:-$HOME/.cache/affiliate-infra}/bin"
FERRETDB_VERSION="v1.24.2"
DEFAULT_NATS_VERSION="2.11.9"

say() { echo "install-infra: $*"; }
die() { echo "install-infra: ERROR: $*" >&2; exit 1; }

# Keeps the log to one line per step: a command's own output is shown only if it fails.
quiet() {
  local out rc=0
  out="$(mktemp)"
  "$@" >"$out" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || cat "$out" >&2
  rm -f "$out"
  return "$rc"
}

mkdir -p "$BIN"

# --- redis-server ------------------------------------------------------------
if command -v redis-server >/dev/null 2>&1; then
  say "redis-server present ($(command -v redis-server))"
else
  [ "$(id -u)" -eq 0 ] || die "redis-server is missing and we are not root; install it (e.g. sudo apt-get install redis-server)"
  say "installing redis-server with apt-get"
  quiet apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive quiet apt-get install -y -qq redis-server || die "apt-get install redis-server failed"
fi

# Both Go-built servers below need the toolchain; fail early with a clear hint.
need_go() {
  command -v go >/dev/null 2>&1 || die "Go is required to build $1 but 'go' is not on PATH (install Go >= 1.24)"
}

# --- nats-server ---------------------------------------------------------------
# The local binary must match the image docker-compose pins, so both paths test
# against the same server.
COMPOSE="$ROOT/docker-compose.yml"
NATS_VERSION=""
if [ -f "$COMPOSE" ]; then
  NATS_VERSION="$(grep -E '^[[:space:]]*image:[[:space:]]*["'\'']?nats:' "$COMPOSE" | head -n1 \
    | sed -E 's/.*nats:([^"'\''[:space:]-]+).*/\1/')" || true
fi
if [ -z "$NATS_VERSION" ]; then
  NATS_VERSION="$DEFAULT_NATS_VERSION"
  say "no nats image pinned in $COMPOSE; using default nats $NATS_VERSION"
fi

if [ -x "$BIN/nats-server" ] && "$BIN/nats-server" --version 2>/dev/null | grep -q "v$NATS_VERSION\b"; then
  say "nats-server v$NATS_VERSION present"
else
  need_go nats-server
  say "building nats-server v$NATS_VERSION with go install"
  GOBIN="$BIN" quiet go install "github.com/nats-io/nats-server/v2@v$NATS_VERSION" \
    || die "go install of nats-server v$NATS_VERSION failed"
fi

# --- MongoDB wire protocol -----------------------------------------------------
if command -v mongod >/dev/null 2>&1; then
  say "mongod present ($(command -v mongod)); FerretDB not needed"
elif [ -x "$BIN/ferretdb" ] && "$BIN/ferretdb" --version 2>/dev/null | grep -q "$FERRETDB_VERSION"; then
  say "ferretdb $FERRETDB_VERSION present"
else
  need_go ferretdb
  say "building ferretdb $FERRETDB_VERSION (about 5 minutes on a cold Go cache)"
  WORK="$(mktemp -d)"
  trap 'chmod -R u+w "$WORK" 2>/dev/null || true; rm -rf "$WORK"' EXIT

  # A plain `go install ...@v1.24.2` fails here: the proxy refuses the module's
  # version list. A throwaway module that imports the command lets `go get`
  # resolve the exact version and fill the module cache instead.
  mkdir "$WORK/fetch"
  (
    cd "$WORK/fetch"
    quiet go mod init fb
    printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/FerretDB/FerretDB/cmd/ferretdb"\n' > tools.go
    quiet go get "github.com/FerretDB/FerretDB/cmd/ferretdb@$FERRETDB_VERSION" \
      || die "go get of FerretDB $FERRETDB_VERSION failed"
  )

  # The released module lacks build/version/version.txt (it is generated from
  # git), and the binary panics at startup without it, so build from a copy.
  SRC="$(go env GOMODCACHE)/github.com/!ferret!d!b/!ferret!d!b@$FERRETDB_VERSION"
  [ -d "$SRC" ] || die "FerretDB sources not found in module cache at $SRC"
  cp -R "$SRC" "$WORK/src"
  chmod -R u+w "$WORK/src"
  echo "$FERRETDB_VERSION" > "$WORK/src/build/version/version.txt"
  (cd "$WORK/src" && quiet go build -o "$BIN/ferretdb" ./cmd/ferretdb) || die "go build of ferretdb failed"
  say "ferretdb $FERRETDB_VERSION built at $BIN/ferretdb"
fi

say "done; binaries in $BIN"
