#!/usr/bin/env bash
# The page's "try the demo" data: a synthetic home (scripts/gen-corpus.py, a seed that gives
# several projects, days and models, a resumed session, a denial, a deleted session and a bad
# line in ~/.copilot, and VS Code Copilot Chat sessions in ~/.config/Code/User), zipped into
# www/demo/copilot-demo.zip.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scripts/gen-corpus.py "$work/home" --sessions 48 --seed 4 --vscode 1MB 2>/dev/null
rm -f "$work/home/vscode-expected.json" 
mkdir -p www/demo
python3 - "$work/home" www/demo/copilot-demo.zip <<'PY'
import os, sys, zipfile
home, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
    for folder, dirs, files in sorted(os.walk(home)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            entry = zipfile.ZipInfo(os.path.join("demo-home", os.path.relpath(path, home)), date_time=(2026, 11, 29, 12, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as source:
                archive.writestr(entry, source.read())
PY
echo "demo: www/demo/copilot-demo.zip ($(du -h www/demo/copilot-demo.zip | cut -f1))"
