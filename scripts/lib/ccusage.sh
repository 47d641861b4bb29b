# Sourced by the scripts that run ccusage beside copilot-lens: installs ccusage at the pinned
# version into .tools/ccusage (idempotent) and sets CCUSAGE_BIN to its native binary.
CCUSAGE_VERSION=20.0.24
CCUSAGE_TOOLS=".tools/ccusage"
CCUSAGE_BIN="$CCUSAGE_TOOLS/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage"

install_ccusage() {
  local have
  have=$(node -p "require('./$CCUSAGE_TOOLS/node_modules/ccusage/package.json').version" 2>/dev/null || true)
  if [ "$have" != "$CCUSAGE_VERSION" ] || [ ! -f "$CCUSAGE_BIN" ]; then
    mkdir -p "$CCUSAGE_TOOLS"
    printf '{ "private": true, "dependencies": { "ccusage": "%s", "@ccusage/ccusage-linux-x64": "%s" } }\n' \
      "$CCUSAGE_VERSION" "$CCUSAGE_VERSION" >"$CCUSAGE_TOOLS/package.json"
    echo "installing ccusage@$CCUSAGE_VERSION into $CCUSAGE_TOOLS" >&2
    npm install --prefix "$CCUSAGE_TOOLS" --no-audit --no-fund --loglevel=error >&2
  fi
  # The npm wrapper makes the binary executable on first use; running it directly needs that too.
  chmod +x "$CCUSAGE_BIN"
}
