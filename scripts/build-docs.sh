#!/usr/bin/env bash
# Builds the user guide (docs/, mdBook) into www/docs/, where the page's site publishes it under
# /docs/, and fails on a broken link or anchor (mdBook itself writes one without a word).
set -euo pipefail
cd "$(dirname "$0")/.."
mdbook build docs
python3 scripts/check-links.py www/docs
