#!/usr/bin/env bash
# Installs what the tests need, idempotently: what building the page and the guide needs
# (scripts/setup-build.sh --guide), then the tests' own tools: Debian's Chromium for the browser
# tests, package.json's devDependencies (playwright-core, axe-core for the accessibility checks,
# TypeScript to check the page's JavaScript),
# and Python's duckdb.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup-build.sh --guide

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# The browser tests drive Debian's Chromium (playwright-core cannot download its own here).
if [ ! -x /usr/bin/chromium ]; then
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends chromium chromium-driver
fi

# DuckDB's Python package reads the team exports back (scripts/team-test.py, scripts/team-scale.py).
DUCKDB_VERSION=2.0.1
if [ "$(python3 -c 'import duckdb; print(duckdb.__version__)' 2>/dev/null)" != "$DUCKDB_VERSION" ]; then
  # A Python whose packages the system manages (PEP 668) refuses --user alone.
  python3 -m pip install --user --quiet "duckdb==$DUCKDB_VERSION" \
    || python3 -m pip install --user --quiet --break-system-packages "duckdb==$DUCKDB_VERSION"
fi

if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ] || [ ! -d node_modules/typescript ]; then
  npm ci --no-audit --no-fund
fi
