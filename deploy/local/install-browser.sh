#!/usr/bin/env bash
# Installs Debian's Chromium for the portal's browser tests (driven by playwright-core).
# Safe to re-run: does nothing when a Chromium is already there.
set -euo pipefail

say() { echo "install-browser: $*"; }
die() { echo "install-browser: ERROR: $*" >&2; exit 1; }

BROWSER="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$BROWSER" ]; then
  say "chromium present ($BROWSER)"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || die "chromium is missing and we are not root; install it (e.g. sudo apt-get install chromium)"
say "installing chromium with apt-get"
out="$(mktemp)"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$out" 2>&1; then
  cat "$out" >&2
  rm -f "$out"
  die "apt-get install chromium failed"
fi
rm -f "$out"
say "chromium installed ($(command -v chromium))"
