#!/usr/bin/env python3
"""Generates a synthetic but realistic Copilot CLI 1.0.102 home for benchmarks and cross-checks.

    scripts/gen-corpus.py OUT_DIR --size 500MB [--seed 1] [--sessions N] [--small] [--force] [--vscode SIZE]
    scripts/gen-corpus.py OUT_DIR --check

OUT_DIR is a "home": everything goes under OUT_DIR/.copilot/. --size (K/M/G suffixes, decimal:
MB = 1e6) is the target total size of the events.jsonl files; sessions are added until it is
reached. --sessions N alone generates exactly N sessions with an event log; with --size too it is
a cap. The same seed and arguments give byte-identical output (the session store's WAL salts are
derived from the seed and its checksums recomputed).

Shapes follow fixtures/real-cli-1.0.102 (events, workspace.yaml, rewind snapshots, logs, store)
and fixtures/spec-sample (model.* utility events, permissions, model_picker switches, apply_patch).
Counters are consistent: every main session.shutdown carries, per model, the exact sums of the
session.usage_record lines written before it, cumulative since the session began. A sub-agent's
calls are recorded once, stamped with its `agentId` (and `parentToolCallId`); the main shutdown
includes them, and the sub-agent's own stamped shutdown repeats its share (never add that again).

Session mix (drawn per session): ~74% plain (one shutdown), 12% resumed (cumulative second
shutdown), 2% resumed whose second shutdown repeats the first line (same event id), 5% with no
shutdown, 3% with two models, 2% with a sub-agent, 1% cut mid-line at the end, 1% with a garbage
line in the middle. Besides: ~3% autopilot directories holding only workspace.yaml and ~2% deleted
sessions present only in session-store.db and the command history.

--small makes every session a few lines instead (start, model, one prompt answered in one turn
with no tool call and no system message, shutdown), each in a folder with workspace.yaml and
checkpoints/index.md as the CLI leaves them, and no session store, autopilot folders or process
logs but one: the many-small-files case (`--sessions 200000 --small`, scripts/bench-many.sh).

--vscode SIZE adds VS Code's Copilot Chat sessions to the home (OUT_DIR/.config/Code/User, a few in
Code - Insiders): SIZE of chat session files (.jsonl mutation logs, .json snapshots), and
OUT_DIR/vscode-expected.json, the usage, sessions and bad lines a reader must find (see
scripts/lib/vscode_chat.py). Alone it writes no .copilot; `--sessions 0 --vscode SIZE` adds a
.copilot with no session (home files and an empty store). The CLI part is the same bytes with or
without it. --check replays every chat session file of OUT_DIR and compares with that sidecar.
"""
from __future__ import annotations

import argparse
import bisect
import hashlib
import importlib.util
import json
import math
import os
import random
import shutil
import sqlite3
import struct
import sys
import tempfile
import time
from json.encoder import encode_basestring as _jstr
from pathlib import Path

VERSION = "1.0.102"
DAY_MS = 86_400_000
END_MS = 1_796_000_000_000 - (1_796_000_000_000 % DAY_MS) - DAY_MS + 22 * 3_600_000  # 2026-11-29T22:00Z
WINDOW_MS = 60 * DAY_MS

MODELS = ["gpt-4.1", "gpt-5-mini", "gpt-5.4", "claude-sonnet-4.5", "claude-opus-4.6", "gemini-3.1-pro"]
MODEL_WEIGHTS = [10, 15, 25, 30, 12, 8]
DISPLAY = {
    "gpt-4.1": "GPT-4.1", "gpt-5-mini": "GPT-5 mini", "gpt-5.4": "GPT-5.4",
    "claude-sonnet-4.5": "Claude Sonnet 4.5", "claude-opus-4.6": "Claude Opus 4.6", "gemini-3.1-pro": "Gemini 3.1 Pro",
}
ENDPOINT = {
    "gpt-4.1": "/chat/completions", "gpt-5-mini": "/responses", "gpt-5.4": "/responses",
    "claude-sonnet-4.5": "/v1/messages", "claude-opus-4.6": "/v1/messages", "gemini-3.1-pro": "/chat/completions",
}
API_PREFIX = {"/chat/completions": "chatcmpl-", "/responses": "resp_", "/v1/messages": "msg_"}
PROVIDER = {"gpt": "openai", "cla": "anthropic", "gem": "google"}
REASONING = {"gpt-4.1": None, "gpt-5-mini": "medium", "gpt-5.4": "medium", "claude-sonnet-4.5": None,
             "claude-opus-4.6": "high", "gemini-3.1-pro": "medium"}
MAX_PROMPT = {"gpt-4.1": 128000, "gpt-5-mini": 128000, "gpt-5.4": 272000, "claude-sonnet-4.5": 200000,
              "claude-opus-4.6": 200000, "gemini-3.1-pro": 200000}

PROJECTS = [  # name, language, weight, may grant approved-for-location
    ("octo-world", "node", 22, True),
    ("hubot-relay", "node", 10, False),
    ("linguist-lite", "python", 16, True),
    ("spoon-knife", "python", 6, False),
    ("actions-cache-rs", "rust", 18, True),
    ("licensee-go", "go", 12, False),
    ("primer-css-lab", "node", 8, False),
    ("docs-pipeline", "python", 8, False),
]
BRANCH_POOL = ["feat/date-parsing", "fix/flaky-tests", "chore/bump-deps", "feat/cli-flags", "refactor/cache-layer",
               "fix/windows-paths", "feat/streaming", "docs/readme", "perf/index-build", "fix/timeout"]
FILES = {
    "node": ["src/index.ts", "src/cli.ts", "src/config.ts", "src/date.ts", "src/date.test.ts", "src/cache.ts",
             "src/http/client.ts", "src/http/retry.ts", "src/util/paths.ts", "src/render.tsx", "package.json",
             "README.md", "tsconfig.json", "test/cli.test.ts", "src/logger.ts", "src/commands/run.ts"],
    "python": ["src/app/__init__.py", "src/app/cli.py", "src/app/config.py", "src/app/parser.py", "src/app/cache.py",
               "tests/test_parser.py", "tests/test_cli.py", "pyproject.toml", "README.md", "src/app/http.py",
               "src/app/models.py", "docs/index.md", "src/app/render.py", "tests/conftest.py"],
    "rust": ["src/main.rs", "src/lib.rs", "src/cache.rs", "src/store/mod.rs", "src/store/wal.rs", "src/cli.rs",
             "src/config.rs", "tests/cli.rs", "Cargo.toml", "README.md", "src/http.rs", "benches/index.rs"],
    "go": ["main.go", "cmd/root.go", "cmd/detect.go", "internal/license/match.go", "internal/license/match_test.go",
           "internal/fs/walk.go", "go.mod", "README.md", "internal/cache/cache.go", "internal/http/client.go"],
}
COMMANDS = {
    "node": ["npm test", "npm run build", "npm run lint", "npx tsc --noEmit", "git status", "git diff --stat",
             "ls -la src", "npx vitest run src/date.test.ts", "git log --oneline -10", "node dist/cli.js --help"],
    "python": ["pytest -x", "pytest tests/test_parser.py -q", "ruff check .", "python -m app --help", "git status",
               "git diff --stat", "ls -la src/app", "mypy src", "git log --oneline -10", "pip list"],
    "rust": ["cargo test", "cargo build --release", "cargo clippy --all-targets", "cargo fmt --check", "git status",
             "git diff --stat", "ls -la src", "cargo test --test cli", "git log --oneline -10", "cargo tree -d"],
    "go": ["go test ./...", "go build ./...", "go vet ./...", "gofmt -l .", "git status", "git diff --stat",
           "ls -la internal", "go test ./internal/license -run TestMatch", "git log --oneline -10", "go mod tidy"],
}
URLS = ["https://docs.github.com/en/copilot/how-tos/use-copilot-agents", "https://developer.mozilla.org/en-US/docs/Web/API/Fetch_API",
        "https://docs.rs/serde_json/latest/serde_json/", "https://pkg.go.dev/net/http", "https://docs.python.org/3/library/sqlite3.html",
        "https://www.sqlite.org/walformat.html", "https://nodejs.org/api/fs.html", "https://github.com/github/copilot-cli/issues/412"]

WORDS = ("cache config parser token session index stream buffer request response retry timeout handler router "
         "schema record model metric counter window path file reader writer builder loader encoder decoder "
         "queue worker channel future promise result error value option state context event listener hook plugin "
         "template render layout manifest package version release branch commit diff patch merge rebase tag "
         "date time zone locale format offset range slice vector map set key entry node tree graph edge").split()
IDENTS = ["parseConfig", "loadUser", "render", "handleRequest", "fetchItems", "cacheKey", "retryPolicy", "tokenize",
          "normalize_path", "build_index", "flush", "serialize", "validate", "compute_diff", "open_stream",
          "resolveModel", "read_manifest", "write_report", "merge_ranges", "parse_date", "format_offset", "main",
          "run", "newClient", "withTimeout", "decode_frame", "checksum", "walk_dir", "match_license", "toJSON"]
TYPES = ["String", "u64", "Vec<u8>", "Option<&str>", "number", "string[]", "Config", "Result<(), Error>", "int", "dict"]
MODS = ["date", "cache", "config", "cli", "render", "http", "paths", "store", "index", "util"]
SUBJECTS = ["the parser", "the cache layer", "the retry loop", "the date helper", "the CLI entry point", "this test",
            "the config loader", "the HTTP client", "the index builder", "the WAL reader"]
VERBS = ["updated", "refactored", "fixed", "simplified", "checked", "traced", "rewrote", "tightened", "reviewed", "extended"]
CLAUSES = ["it no longer drops the last entry", "timezones are handled explicitly", "errors carry the file path",
           "the test suite passes again", "the output stays byte-identical", "retries back off exponentially",
           "empty input returns an empty list", "the flag is documented in --help", "no allocation happens per line",
           "it works on Windows paths too"]

PROMPTS = [  # (prompt, title); {f} file, {g} function, {c} command, {w} word
    ("fix the failing test in {f}", "Fix failing test in {b}"),
    ("why does {g} return null when the input is empty?", "Debug {g} null result"),
    ("add a --{w} option to the CLI and document it", "Add --{w} CLI option"),
    ("refactor {f} to remove the duplicated {w} handling", "Refactor {w} handling"),
    ("run {c} and fix whatever breaks", "Fix {c} failures"),
    ("write unit tests for {g}", "Tests for {g}"),
    ("explain how the {w} module works", "Explain {w} module"),
    ("the build is slow, profile {g} and speed it up", "Speed up {g}"),
    ("rename {g} to something clearer across the repo", "Rename {g}"),
    ("update the README with the new {w} flag", "docs: README {w} flag"),
    ("bump the dependencies and make sure {c} still passes", "chore: bump dependencies"),
    ("handle timezones correctly in {f}", "fix: timezone handling in {b}"),
    ("can you review my uncommitted changes?", "Review uncommitted changes"),
    ("find where we parse the {w} header and add validation", "Validate {w} header"),
    ("make {g} retry on 503 with backoff", "Retry {g} on 503"),
    ("add logging around {g} so we can see slow calls", "Log slow {g} calls"),
    ("port {f} to use async io", "Async io in {b}"),
    ("what changed on this branch compared to main?", "Branch diff summary"),
    ("look up the docs for {w} streaming and apply them here", "Apply {w} streaming docs"),
    ("continue", None),
    ("yes, go ahead", None),
    ("now run the tests again", None),
    ("also cover the edge case with an empty {w}", None),
]
FEEDBACK = ["don't touch that file, use the existing helper instead", "no, run the narrower test first",
            "please don't fetch external pages", "stop, that would delete my local changes", "use pnpm, not npm"]
TIPS = ["Tip: use /model to switch models mid-session.", "Tip: press ctrl+r to search your prompt history.",
        "Tip: /clear starts a fresh conversation in the same folder.", "Tip: add instructions in .github/copilot-instructions.md."]

SYSTEM_BASE = """You are the GitHub Copilot CLI, a terminal assistant built by GitHub. You are an interactive CLI tool that helps users with software engineering tasks.

# Tone and style
* When providing output or explanation to the user, try to limit your response to 100 words or less.
* Be concise in routine responses. For complex tasks, briefly explain your approach before implementing.

# Search and delegation
* Search files/text only in the cwd or its descendants unless absolutely necessary. For code, prefer: available code intelligence > available LSP > glob > grep with a glob > bash.

# Tool usage efficiency
CRITICAL: Maximize tool efficiency:
* For simple searches, reads, or edits requiring only 2–5 direct calls, use grep, glob, view, edit yourself.
* **USE PARALLEL TOOL CALLING** - when you need to perform multiple independent operations, make ALL tool calls in a SINGLE response.
* Chain related bash commands with && instead of separate calls.
"""
SYSTEM_EXTRA = [
    "\n# Code changes\n* Make minimal, surgical changes. Never delete working code unless asked.\n* Run the project's linters, builds and tests before and after a change.\n* Only comment code that needs a bit of clarification.\n",
    "\n# Git\n* Never commit unless the user asks. When you do, add the trailer `Co-authored-by: Copilot <223556219+Copilot@users.noreply.github.com>`.\n* Prefer `git --no-pager` so output is not paged.\n",
    "\n# Environment limitations\n* You do not have a browser. Use web_fetch for pages the user points at.\n* Long-running commands should be started in async mode and polled.\n",
    "\n# Safety\n* Do not share secrets found in files or the environment.\n* Do not generate copyrighted content verbatim.\n* Refuse to build malware or harmful tooling.\n",
    "\n# Tips for each tool\n* view: read files with line numbers; use view_range for large files.\n* edit: old_str must match exactly one location; include enough context.\n* grep: ripgrep syntax; use glob to narrow the files.\n",
]

NOISE_LOG = [
    "[rust:copilot_runtime::storage::managed_settings] [managedSettings] device MDM: no policy present on this device",
    "[rust:copilot_runtime::storage::managed_settings] [managedSettings] effective policy resolved: source=none, bypassDisabled=false, serverFetchFailed=false",
    "[rust:copilot_runtime::shared_api::permissions] [managedSettings] applied: no bypass restriction in force (managed policy absent)",
    "Session indexing debug: SESSION_INDEXING=true, repository=undefined",
    "[rust:otel] OTel session policy applied",
    "Node.js version: v24.20.0",
    "[rust:model_bindings::api_resolver] Using default model: claude-sonnet-4.5",
    "Memory enablement check: enabled",
    "Remote session access enabled",
    "[rust:rmcp::service] Service initialized as client for the github-mcp-server remote MCP server",
    "CAFE metrics are paused because no supported endpoint is available",
    "Shell completions: no writable completion directory found for bash, skipping",
    '[rust:copilot_runtime::tools::login_shell_env] login_shell_env_outcome {"outcome":"captured","shell":"/bin/bash","elapsed_ms":23}',
]
WARN_LOG = ["[rust:rt_network::tls_certs] Ignoring distrusted emSign ECC Root CA - G3 trust anchor",
            "CAFE metrics endpoint resolution failed: Error: session not found"]
CHECKPOINT_INDEX = ("# Checkpoint History\n\nCheckpoints are listed in chronological order. Checkpoint 1 is the oldest, "
                    "higher numbers are more recent.\n\n| # | Title | File |\n|---|-------|------|\n")

_gmtime = time.gmtime
_SEC_CACHE: dict[int, str] = {}


def iso(ms: int) -> str:
    s, m = divmod(ms, 1000)
    head = _SEC_CACHE.get(s)
    if head is None:
        t = _gmtime(s)
        head = f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
        if len(_SEC_CACHE) > 100_000:
            _SEC_CACHE.clear()
        _SEC_CACHE[s] = head
    return f"{head}.{m:03d}Z"


def jdump(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def esc(text: str) -> str:
    """JSON string body, without the quotes."""
    return _jstr(text)[1:-1]


def fast(rng: random.Random):
    """randint and choice built on random(): several times cheaper than the library's."""
    rnd = rng.random

    def ri(a: int, b: int) -> int:
        return a + int(rnd() * (b - a + 1))

    def ch(seq):
        return seq[int(rnd() * len(seq))]
    return ri, ch


def make_uuid(rng: random.Random):
    bits = rng.getrandbits

    def uuid() -> str:
        h = "%032x" % ((bits(128) & ~(0xF << 76) & ~(0x3 << 62)) | (4 << 76) | (2 << 62))
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return uuid


# ---------------------------------------------------------------------------------------------
# Text pools: big JSON-escaped strings sliced on line boundaries, so tool outputs cost no escaping.

class Pool:
    def __init__(self, lines: list[str]):
        escaped = [esc(line + "\n") for line in lines]
        self.text = "".join(escaped)
        self.size = len(self.text)
        starts, at = [], 0
        for piece in escaped:
            starts.append(at)
            at += len(piece)
        self.starts = starts
        self.text2 = self.text + self.text  # lets a slice run past the end

    def take(self, rng: random.Random, n: int) -> str:
        size, starts = self.size, self.starts
        n = max(1, min(n, size))
        a = starts[int(rng.random() * len(starts))]
        end = a + n
        if end <= size:
            j = bisect.bisect_left(starts, end)
            return self.text[a:starts[j] if j < len(starts) else size]
        j = bisect.bisect_left(starts, end - size)  # runs past the end: continue from the start
        return self.text2[a:size + (starts[j] if j < len(starts) else size)]


def build_pools(rng: random.Random) -> dict[str, Pool]:
    ri, ch = fast(rng)

    def prose() -> str:
        return f"{ch(SUBJECTS)} {ch(VERBS)} so that {ch(CLAUSES)}"

    code, n = [], 0
    while n < 1_400_000:
        length = ri(40, 500)
        for i in range(1, length + 1):
            ind = "    " * ri(0, 3)
            k = ri(0, 11)
            if k == 0:
                body = f"{ind}const {ch(WORDS)}{ch(WORDS).title()} = await {ch(IDENTS)}({ch(WORDS)});"
            elif k == 1:
                body = f"{ind}if ({ch(WORDS)} === null) {{ return {ch(WORDS)}; }}"
            elif k == 2:
                body = f"{ind}def {ch(IDENTS)}({ch(WORDS)}, {ch(WORDS)}=None):"
            elif k == 3:
                body = f"{ind}let {ch(WORDS)}: {ch(TYPES)} = {ch(IDENTS)}(&{ch(WORDS)})?;"
            elif k == 4:
                body = f"{ind}// TODO: {prose()}"
            elif k == 5:
                body = f"{ind}return {ch(WORDS)}.{ch(IDENTS)}({ch(WORDS)});"
            elif k == 6:
                body = f"{ind}}}"
            elif k == 7:
                body = ""
            elif k == 8:
                body = f'import {{ {ch(IDENTS)} }} from "./{ch(MODS)}";'
            elif k == 9:
                body = f'{ind}"{ch(WORDS)}": "{ch(WORDS)}-{ri(0, 999)}",'
            elif k == 10:
                body = f"{ind}assert_eq!({ch(IDENTS)}(\"{ch(WORDS)}\\t{ch(WORDS)}\"), {ri(0, 4096)});"
            else:
                body = f"{ind}for {ch(WORDS)} in {ch(WORDS)}s.iter() {{ {ch(IDENTS)}({ch(WORDS)}); }}"
            line = f"{i}. {body}"
            code.append(line)
            n += len(line) + 4
    logs, n = [], 0
    while n < 1_400_000:
        k = ri(0, 13)
        if k == 0:
            line = f"  ✓ {ch(IDENTS)} {ch(CLAUSES)} ({ri(1, 900)} ms)"
        elif k == 1:
            line = f"  ✗ {ch(IDENTS)} fails when {ch(WORDS)} is empty"
        elif k == 2:
            line = f"PASS src/{ch(MODS)}.test.ts ({ri(1, 9)}.{ri(100, 999)} s)"
        elif k == 3:
            line = f"   Compiling {ch(WORDS)}-{ch(WORDS)} v0.{ri(1, 40)}.{ri(0, 20)}"
        elif k == 4:
            line = f"src/{ch(MODS)}.rs:{ri(1, 900)}:{ri(1, 80)}: warning: unused variable `{ch(WORDS)}`"
        elif k == 5:
            line = f"test {ch(MODS)}::tests::{ch(IDENTS)} ... {'ok' if ri(0, 12) else 'FAILED'}"
        elif k == 6:
            line = f" M src/{ch(MODS)}/{ch(WORDS)}.ts"
        elif k == 7:
            line = f"{rng.getrandbits(28):07x} {ch(VERBS)} {ch(SUBJECTS)}"
        elif k == 8:
            line = f"drwxr-xr-x  {ri(2, 9)} mona mona  {ri(1, 64) * 512:>6} Nov {ri(1, 29):>2} {ri(0, 23):02d}:{ri(0, 59):02d} {ch(WORDS)}"
        elif k == 9:
            line = f"npm WARN deprecated {ch(WORDS)}@{ri(1, 9)}.{ri(0, 9)}.{ri(0, 9)}: {ch(CLAUSES)}"
        elif k == 10:
            line = f'{{"level":"info","msg":"{ch(SUBJECTS)} {ch(VERBS)}","ts":{ri(1_790_000_000, 1_796_000_000)}}}'
        elif k == 11:
            line = f"\t{ch(WORDS)}\t{ri(0, 99999)}\t{ch(WORDS)}"
        elif k == 12:
            line = f"error[E0{ri(100, 799)}]: mismatched types in `{ch(IDENTS)}` — expected `{ch(TYPES)}`"
        else:
            line = f"    at {ch(IDENTS)} (/home/mona/code/octo-world/src/{ch(MODS)}.ts:{ri(1, 400)}:{ri(1, 60)})"
        logs.append(line)
        n += len(line) + 2
    web, n = [], 0
    while n < 1_300_000:
        k = ri(0, 5)
        if k == 0:
            line = f"## {ch(WORDS).title()} {ch(WORDS)}"
        elif k == 1:
            line = ""
        elif k == 2:
            line = f"- `{ch(IDENTS)}()` {ch(CLAUSES)}."
        else:
            line = " ".join(f"{prose().capitalize()}." for _ in range(ri(1, 4)))
        web.append(line)
        n += len(line) + 2
    grep, n = [], 0
    while n < 400_000:
        line = f"src/{ch(MODS)}/{ch(WORDS)}.ts:{ri(1, 900)}:    {ch(WORDS)} = {ch(IDENTS)}(\"{ch(WORDS)}\")"
        grep.append(line)
        n += len(line) + 4
    return {"code": Pool(code), "log": Pool(logs), "web": Pool(web), "grep": Pool(grep)}


def output_size(rng: random.Random) -> int:
    u = rng.random()
    if u < 0.925:
        return int(min(14_000, max(60, math.exp(rng.gauss(7.0, 0.9)))))
    if u < 0.998:
        return int(min(200_000, max(20_000, math.exp(rng.gauss(10.7, 0.6)))))
    return int(rng.uniform(0.8e6, 1.15e6))


# ---------------------------------------------------------------------------------------------
# One session's event log.

class Totals:
    """Per-model counters in first-use order."""

    def __init__(self):
        self.by_model: dict[str, list[int]] = {}

    def add(self, model, i, o, cr, cw, r):
        t = self.by_model.get(model)
        if t is None:
            t = self.by_model[model] = [0, 0, 0, 0, 0, 0]
        t[0] += 1
        t[1] += i
        t[2] += o
        t[3] += cr
        t[4] += cw
        t[5] += r

    def metrics(self) -> dict:
        # No billed amount is written: the generator prices nothing, and a 0 would say that
        # Copilot billed nothing (as for BYOK calls), which its calls do not say.
        return {m: {"requests": {"count": t[0], "cost": 0},
                    "usage": {"inputTokens": t[1], "outputTokens": t[2], "cacheReadTokens": t[3],
                              "cacheWriteTokens": t[4], "reasoningTokens": t[5]}}
                for m, t in self.by_model.items()}


class Session:
    def __init__(self, ctx: "Corpus", rng: random.Random, sid: str, project: tuple, branch: str, start_ms: int, kind: str):
        self.c = ctx
        self.rng = rng
        self.uuid = make_uuid(rng)
        self.ri, self.ch = fast(rng)
        self.rnd = rng.random
        self.sid = sid
        self.name_, self.lang = project[0], project[1]
        self.location_grants = project[3]
        self.cwd = f"/home/mona/code/{self.name_}"
        self.branch = branch
        self.start = start_ms
        self.t = start_ms
        self.kind = kind
        self.lines: list[str] = []
        self.prev: str | None = None
        self.chars = 0
        self.seq = 0
        self.totals = Totals()
        self.api_ms = 0
        self.ctx_tokens = 0
        self.prev_input = 0
        self.lines_added = 0
        self.lines_removed = 0
        self.files_modified: list[str] = []
        self.files_seen: dict[str, None] = {}
        self.prompt_idx = 0
        self.prompts: list[tuple[int, str]] = []  # (ms, text) for the command history
        self.history_extra: list[tuple[int, str]] = []
        self.turn_rows: list[tuple] = []
        self.file_rows: list[tuple] = []
        self.usage_rows: list[tuple] = []
        self.snapshots: list[dict] = []
        self.grants: list[tuple[str, dict]] = []
        self.name: str | None = None
        self.shutdown_ids: list[str] = []
        self.small = ctx.small

    # -- envelope ------------------------------------------------------------------------
    def ev(self, typ: str, data: str, agent: str | None = None) -> str:
        eid = self.uuid()
        p = f'"{self.prev}"' if self.prev else "null"
        if agent:
            line = f'{{"type":"{typ}","data":{data},"id":"{eid}","timestamp":"{iso(self.t)}","parentId":{p},"agentId":"{agent}"}}'
        else:
            line = f'{{"type":"{typ}","data":{data},"id":"{eid}","timestamp":"{iso(self.t)}","parentId":{p}}}'
        self.lines.append(line)
        self.chars += len(line) + 1
        self.prev = eid
        return eid

    def tick(self, lo: int, hi: int) -> None:
        self.t += lo + int(self.rnd() * (hi - lo + 1))

    # -- pieces --------------------------------------------------------------------------
    def hook(self, hook_type: str, payload: dict) -> None:
        hid = self.uuid()
        self.ev("hook.start", jdump({"hookInvocationId": hid, "hookType": hook_type, "input": payload}))
        self.tick(5, 400)
        self.ev("hook.end", jdump({"hookInvocationId": hid, "hookType": hook_type, "success": True, "output": None}))

    def model_switch(self, prev: str, new: str) -> None:
        rng = self.rng
        self.tick(2000, 60000)
        data = {"previousModel": prev, "newModel": new}
        if REASONING.get(prev):
            data["previousReasoningEffort"] = REASONING[prev]
        data["reasoningEffort"] = REASONING.get(new)
        data["contextTier"] = None
        data["source"] = "model_picker"
        self.ev("session.model_change", jdump(data))
        self.tick(300, 500)
        label = "Auto" if new == "auto" else DISPLAY[new]
        self.ev("session.info", jdump({"message": f"Model changed from GitHub Copilot • {DISPLAY.get(prev, prev)} to GitHub Copilot • {label} for this session",
                                       "infoType": "model"}))
        if new == "auto":
            self.tick(1, 3)
            self.ev("session.info", jdump({"message": "Auto routing profile change to Balance requested.", "infoType": "model"}))
        self.history_extra.append((self.t - self.ri(1500, 4000), "/model"))

    def title_events(self, title: str) -> None:
        rng = self.rng
        info = '{"id":"gpt-4o-mini","name":"GPT-4o mini","object":"model","version":"gpt-4o-mini-2024-07-18","provider":{"id":"copilot","kind":"copilot","label":"GitHub Copilot"}}'
        call = self.uuid()
        api = f"chatcmpl-{rng.getrandbits(96):024x}"
        req, sreq = self.uuid(), self.uuid()
        self.tick(20, 120)
        self.ev("model.turn_started", f'{{"kind":"turn_started","model":"gpt-4o-mini","modelInfo":{info},"timestampMs":{self.t},"turn":0}}')
        self.tick(5, 20)
        self.ev("model.model_call_started", f'{{"kind":"model_call_started","model":"gpt-4o-mini","modelInfo":{info},"timestampMs":{self.t},"turn":0}}')
        self.tick(5, 20)
        self.ev("model.messages_snapshot", '{"kind":"messages_snapshot","messages":[{"role":"system","content":"Generate a short session title for this message."},{"role":"user","content":'
                + _jstr(self.prompts[-1][1]) + "}]}")
        self.tick(300, 1500)
        mc = (f'{{"api_endpoint":"/chat/completions","api_id":"{api}","client_request_id":"{req}","initiator":"agent","model":"gpt-4o-mini",'
              f'"request_id":"{req}","rte":false,"service_request_id":"{sreq}","transport":"http"}}')
        t = _jstr(title)
        self.ev("model.message", f'{{"callId":"{call}","kind":"message","message":{{"apiCallId":"{api}","content":{t},"outputTokens":{self.ri(3, 9)},"providerId":"copilot","refusal":null,"role":"assistant"}},"modelCall":{mc},"turn":0}}')
        self.tick(2, 15)
        self.ev("model.response", f'{{"callId":"{call}","kind":"response","modelCall":{{"api_id":"{api}","model":"gpt-4o-mini"}},"response":{{"content":{t},"providerId":"copilot","refusal":null,"role":"assistant"}},"turn":0}}')
        self.tick(2, 15)
        self.ev("model.model_call_success", f'{{"callId":"{call}","kind":"model_call_success","modelCall":{mc},"modelCallDurationMs":{self.ri(300, 1500)},"modelDisplayName":"GPT-4o mini","provider":{{"id":"copilot","kind":"copilot","label":"GitHub Copilot"}}}}')
        self.tick(2, 15)
        self.ev("model.turn_ended", f'{{"kind":"turn_ended","model":"gpt-4o-mini","modelInfo":{info},"timestampMs":{self.t},"turn":0}}')

    def usage(self, model: str, out_tokens: int, initiator: str, tool_names: list[str], auto: bool, turn_index: int,
              agent: str | None = None, parent_call: str | None = None, sub_totals: Totals | None = None,
              duplicate_for_main: bool = False) -> str:
        """Writes one session.usage_record (and counts it). Returns the apiCallId."""
        rng = self.rng
        ctx = self.ctx_tokens + self.ri(0, 600)
        inp = max(5000, min(ctx, 120_000 - self.ri(0, 4000)))
        if self.prev_input and rng.random() < 0.92:
            cr = int(min(self.prev_input, inp) * rng.uniform(0.82, 0.98))
        else:
            cr = self.ch((0, 0, 3968, 4096))
        cr = min(cr, inp)
        cw = int((inp - cr) * rng.uniform(0.4, 0.95)) if model.startswith("claude") else 0
        if REASONING[model] or (model.startswith("claude") and rng.random() < 0.5):
            r = int(out_tokens * rng.uniform(0.15, 0.6))
        else:
            r = 0
        duration = int(400 + out_tokens * rng.uniform(4, 18) + inp / 60)
        ttft = duration * rng.uniform(0.15, 0.5)
        ep = ENDPOINT[model]
        api = f"{API_PREFIX[ep]}{rng.getrandbits(96):024x}"
        counts: dict[str, int] = {}
        for name in tool_names:
            counts[name] = counts.get(name, 0) + 1
        finish = "tool_calls" if tool_names else "stop"
        self.t += duration
        self.api_ms += duration
        ms = self.t

        def record(source: str, seq: int, stamp: str | None, parent: str | None) -> None:
            pc = f',"parentToolCallId":"{parent}"' if parent else ""
            self.ev("session.usage_record",
                    f'{{"usage":{{"model":"{model}","modelDisplayName":"{DISPLAY[model]}","inputTokens":{inp},"outputTokens":{out_tokens},'
                    f'"cacheReadTokens":{cr},"cacheWriteTokens":{cw},"reasoningTokens":{r},"cost":0.0,"duration":{duration},'
                    f'"timeToFirstTokenMs":{ttft:.6f},"outputTtftMs":{ttft + 0.04:.6f},"interTokenLatencyMs":{rng.uniform(4, 30):.6f},'
                    f'"initiator":"{initiator}","interactionType":"conversation-agent","isByok":false,"modelProvider":"{PROVIDER[model[:3]]}",'
                    f'"isAuto":{"true" if auto else "false"},"maxPromptTokens":{MAX_PROMPT[model]},"maxOutputTokens":32000,"transport":"http",'
                    f'"requestBodyBytes":{inp * 4 + self.ri(0, 999)},"apiCallId":"{api}","rte":false,"apiEndpoint":"{ep}",'
                    f'"accounting":{{"sourceSessionId":"{source}","sequence":{seq},"usageId":"{api}"}}{pc},"aiCreditsStatus":"available",'
                    f'"availableToolCount":19,"numToolCalls":{len(tool_names)},"toolCounts":{jdump(counts)},"finishReason":"{finish}",'
                    f'"contentFilterTriggered":false}}}}', stamp)

        if agent:
            # One record per sub-agent call, stamped with its agentId and parent tool call;
            # the parent's shutdown totals include it (rule 6 of the counting seed).
            sub_totals.add(model, inp, out_tokens, cr, cw, r)
        if not agent or duplicate_for_main:
            self.seq += 1
            self.totals.add(model, inp, out_tokens, cr, cw, r)
            record(self.sid, self.seq, agent, parent_call)
            self.usage_rows.append((self.sid, turn_index, agent, parent_call, model, model, inp, out_tokens, cr, cw, r, 0, 1.0,
                                    duration, int(ttft), round(ttft + 0.04, 3), int(rng.uniform(4, 30)), initiator, ep,
                                    REASONING[model], finish, 0, None, iso(ms)))
        self.prev_input = inp
        self.ctx_tokens = inp + out_tokens
        return api

    def reply_text(self, lo: int, hi: int) -> str:
        rng = self.rng
        target = self.ri(lo, hi)
        parts, n = [], 0
        while n < target:
            k = rng.random()
            if k < 0.15:
                s = "\n\n" + "\n".join(f"- `{self.ch(FILES[self.lang])}`: {self.ch(VERBS)} so that {self.ch(CLAUSES)}." for _ in range(self.ri(2, 4)))
            elif k < 0.2:
                s = f"\n\n```\n{self.ch(COMMANDS[self.lang])}\n```\n"
            else:
                s = f"{self.ch(SUBJECTS).capitalize()} is {self.ch(VERBS)}: {self.ch(CLAUSES)}. "
            parts.append(s)
            n += len(s)
        return "".join(parts).strip()

    # -- tools ---------------------------------------------------------------------------
    def plan_tool(self, name: str) -> dict:
        """Arguments and outputs of one tool call (not yet written)."""
        rng = self.rng
        lang = self.lang
        path = f"{self.cwd}/{self.ch(FILES[lang])}"
        call = {"id": f"call_{rng.getrandbits(96):024x}", "name": name, "type": "function", "path": None, "added": 0, "removed": 0}
        if name == "bash":
            cmd = self.ch(COMMANDS[lang])
            desc = f"Run {cmd.split()[0]}"
            call["args"] = f'{{"command":{_jstr(cmd)},"description":{_jstr(desc)}}}'
            call["intent"], call["title"], call["cmd"] = desc, "Running command", cmd
            call["perm"] = "shell"
        elif name == "view":
            call["args"] = f'{{"path":"{path}"}}'
            call["intent"], call["title"] = f"view the file at {path}.", "Viewing file"
            call["path_read"] = path
            call["perm"] = None
        elif name == "grep":
            w = self.ch(IDENTS)
            call["args"] = f'{{"pattern":"{w}","path":"{self.cwd}","output_mode":"content","-n":true}}'
            call["intent"], call["title"], call["perm"] = f"search for {w}", "Searching", None
        elif name == "glob":
            ext = {"node": "ts", "python": "py", "rust": "rs", "go": "go"}[lang]
            call["args"] = f'{{"pattern":"**/*.{ext}"}}'
            call["intent"], call["title"], call["perm"] = f"find *.{ext} files", "Finding files", None
        elif name == "web_fetch":
            url = self.ch(URLS)
            call["args"] = f'{{"url":"{url}","max_length":20000}}'
            call["intent"], call["title"], call["perm"], call["url"] = f"fetch {url}", "Fetching web content", "url", url
        else:  # edit, create, apply_patch
            added, removed = self.ri(1, 40), self.ri(0, 20)
            if name == "create":
                removed = 0
            call.update(path=path, added=added, removed=removed, perm="write")
            old = f"{self.ch(WORDS)} = {self.ch(IDENTS)}({self.ch(WORDS)})"
            new = f"{self.ch(WORDS)} = {self.ch(IDENTS)}({self.ch(WORDS)}, {self.ch(WORDS)})"
            if name == "edit":
                call["args"] = f'{{"path":"{path}","old_str":{_jstr(old)},"new_str":{_jstr(new)}}}'
                call["intent"], call["title"] = f"edit the file at {path}.", "Editing file"
            elif name == "create":
                body = self.c.pools["code"].take(rng, added * 40)
                call["args"] = f'{{"path":"{path}","file_text":"{body}"}}'
                call["intent"], call["title"] = f"create a new file at {path}.", "Creating file"
            else:
                patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"
                call["type"] = "custom"
                call["args"] = _jstr(patch)
                call["start_args"] = f'{{"input":{call["args"]}}}'
                call["intent"], call["title"] = f"apply a patch to {path}", "Apply patch"
            call["diff"] = f"-{old}\n+{new}\n"
        return call

    def run_tool(self, call: dict, model: str, interaction: str, turn: str) -> None:
        rng = self.rng
        pools = self.c.pools
        name, cid = call["name"], call["id"]
        denied = False
        if call["perm"] and rng.random() < 0.35:
            req = self.uuid()
            self.tick(30, 200)
            kind = call["perm"]
            if kind == "shell":
                cmd = call["cmd"]
                pr = (f'{{"kind":"shell","toolCallId":"{cid}","intention":{_jstr(call["intent"])},"fullCommandText":{_jstr(cmd)},"shellType":"bash",'
                      f'"commands":[{{"identifier":{_jstr(cmd)},"readOnly":false,"allowMatchIdentifier":{_jstr(cmd)}}}],"possiblePaths":[],"possibleUrls":[],'
                      f'"hasWriteFileRedirection":false,"canOfferSessionApproval":true}}')
                prompt = f'{{"kind":"commands","toolCallId":"{cid}","intention":{_jstr(call["intent"])},"fullCommandText":{_jstr(cmd)},"commandIdentifiers":[{_jstr(cmd)}]}}'
                approval = {"kind": "commands", "commandIdentifiers": [cmd]}
            elif kind == "write":
                pr = f'{{"kind":"write","toolCallId":"{cid}","intention":{_jstr(call["intent"])},"fileName":"{call["path"]}","diff":{_jstr(call["diff"])},"canOfferSessionApproval":true}}'
                prompt = f'{{"kind":"write","toolCallId":"{cid}","intention":{_jstr(call["intent"])},"fileName":"{call["path"]}"}}'
                approval = {"kind": "write"}
            else:
                pr = f'{{"kind":"url","toolCallId":"{cid}","intention":{_jstr(call["intent"])},"url":"{call["url"]}"}}'
                prompt = f'{{"kind":"url","toolCallId":"{cid}","intention":{_jstr(call["intent"])},"url":"{call["url"]}"}}'
                approval = None
            self.ev("permission.requested", f'{{"requestId":"{req}","ownerSessionId":"{self.sid}","agentMode":"interactive","permissionMode":"manual","permissionRequest":{pr},"promptRequest":{prompt}}}')
            self.tick(800, 25000)
            u = rng.random()
            if u < 0.03:
                denied = True
                feedback = self.ch(FEEDBACK)
                result = {"kind": "denied-interactively-by-user", "feedback": feedback}
            elif u < 0.40 and approval and self.location_grants:
                result = {"kind": "approved-for-location", "locationKey": self.cwd, "approval": approval}
                self.grants.append((self.cwd, approval))
            else:
                result = {"kind": "approved"}
            self.ev("permission.completed", f'{{"requestId":"{req}","toolCallId":"{cid}","decisionSource":"human_response","result":{jdump(result)}}}')
        self.tick(2, 40)
        args = call.get("start_args", call["args"])
        extra = ',"shellToolInfo":{"possiblePaths":[],"hasWriteFileRedirection":false}' if name == "bash" else ""
        self.ev("tool.execution_start", f'{{"toolCallId":"{cid}","toolName":"{name}","arguments":{args},"turnId":"{turn}","model":"{model}","toolTitle":"{call["title"]}"{extra}}}')
        head = f'{{"toolCallId":"{cid}","model":"{model}","interactionId":"{interaction}","turnId":"{turn}","rte":false'
        if denied:
            self.tick(5, 50)
            msg = _jstr(f"The user rejected this tool call. User feedback: {feedback}")
            self.ev("tool.execution_complete", f'{head},"success":false,"error":{{"code":"denied","message":{msg}}},"toolTelemetry":{{}}}}')
            return
        fail = rng.random() < 0.08
        size = output_size(rng)
        if name == "bash":
            self.tick(200, 40000)
            code = self.ch((1, 1, 2, 127)) if fail else 0
            body = pools["log"].take(rng, size)
            content = f"{body}<shellId: {self.ri(0, 9)} completed with exit code {code}>"
            detailed = f',"detailedContent":"{content}"' if size < 300_000 and rng.random() < 0.3 else ""
            if fail:
                tail = f',"shellExecution":{{"exitCode":{code}}},"success":false,"result":{{"content":"{content}"{detailed}}},"error":{{"code":"failure","message":"Command exited with code {code}"}}'
            else:
                tail = f',"shellExecution":{{"exitCode":0}},"success":true,"result":{{"content":"{content}"{detailed}}}'
            telemetry = f'{{"properties":{{"customTimeout":"false","executionMode":"sync"}},"metrics":{{"commandTimeout":30000.0,"result_token_count":{len(content) // 4}}}}}'
        elif fail:
            self.tick(5, 300)
            message = {"view": "Path does not exist", "grep": "rg: regex parse error", "glob": "Invalid glob pattern",
                       "web_fetch": "Failed to fetch: 404 Not Found", "edit": "No match found for old_str",
                       "create": "File already exists", "apply_patch": "Patch context does not match"}[name]
            tail = f',"success":false,"result":{{"content":"{message}"}},"error":{{"code":"failure","message":"{message}"}}'
            telemetry = '{"properties":{},"metrics":{}}'
        elif name in ("view", "grep", "glob", "web_fetch"):
            self.tick(5, 3000 if name == "web_fetch" else 200)
            pool = {"view": "code", "grep": "grep", "glob": "grep", "web_fetch": "web"}[name]
            if name == "glob":
                size = min(size, 4000)
            content = pools[pool].take(rng, size)
            detailed = f',"detailedContent":"{content}"' if name in ("view", "web_fetch") and size < 300_000 and rng.random() < 0.6 else ""
            tail = f',"success":true,"result":{{"content":"{content}"{detailed}}}'
            telemetry = f'{{"properties":{{"command":"{name}"}},"metrics":{{"resultLength":{len(content)},"result_token_count":{len(content) // 4}}}}}'
        else:
            self.tick(5, 300)
            path, added, removed = call["path"], call["added"], call["removed"]
            kind = "create" if name == "create" else "edit"
            rel = path[1:]
            diff_body = pools["code"].take(rng, min(size, 6000))
            diff = (f"\\ndiff --git a/{rel} b/{rel}\\nindex {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644\\n--- a/{rel}\\n+++ b/{rel}\\n"
                    f"@@ -1,{removed} +1,{added} @@\\n{diff_body}")
            verb = "Created file" if name == "create" else ("Modified 1 file:" if name == "apply_patch" else "File")
            summary = f"{verb} {path}" + (" updated with changes." if name == "edit" else "")
            tail = f',"fileEdits":[{{"path":"{path}","kind":"{kind}"}}],"success":true,"result":{{"content":"{summary}","detailedContent":"{diff}"}}'
            telemetry = f'{{"properties":{{"command":"{name}"}},"metrics":{{"linesAdded":{added},"linesRemoved":{removed}}}}}'
            self.lines_added += added
            self.lines_removed += removed
            if path not in self.files_seen:
                self.files_seen[path] = None
                self.files_modified.append(path)
                self.file_rows.append((self.sid, path, name, self.prompt_idx, iso(self.t)))
            snap = self.cur_snapshot
            if snap is not None:
                f = snap["byPath"].get(path)
                if f is None:
                    if kind == "create":
                        pre = {"kind": "absent"}
                    else:
                        pre = {"kind": "content", "contentHash": f"{rng.getrandbits(256):064x}", "resolvedPath": path,
                               "encodedPath": {"encoding": "unix-bytes", "data": path.encode().hex()}}
                    f = snap["byPath"][path] = {"path": path, "preimage": pre, "postimage": None, "linesAdded": 0, "linesRemoved": 0}
                    snap["files"][f"{rng.getrandbits(128):032x}"] = f
                f["postimage"] = {"kind": "content", "contentHash": f"{rng.getrandbits(256):064x}", "resolvedPath": path,
                                  "encodedPath": {"encoding": "unix-bytes", "data": path.encode().hex()}}
                f["linesAdded"] += added
                f["linesRemoved"] += removed
        self.ctx_tokens += min(size, 80_000) // 4
        self.ev("tool.execution_complete", f'{head}{tail},"toolTelemetry":{telemetry}}}')

    # -- prompts -------------------------------------------------------------------------
    def prompt(self, model_box: list, p: dict) -> None:
        """One user prompt and the agent turns it causes. model_box[0] is the current model."""
        rng = self.rng
        c = self.c
        first = not self.prompts
        if first:
            self.tick(2000, 40000)
        else:
            self.t += int(min(1_800_000, math.exp(rng.gauss(10.8, 1.2))))
        text, title = c.make_prompt(rng, self.lang, first)
        if first:
            self.name = title
        if p.get("clear") and not first:
            self.history_extra.append((self.t - self.ri(2000, 9000), "/clear"))
        if self.hooks:
            self.hook("userPromptSubmitted", {"prompt": text})
            self.tick(2, 30)
        interaction = self.uuid()
        msg_id = self.uuid()
        self.prompts.append((self.t, text))
        ts = iso(self.t)
        stamp = ts[:-1] + "+00:00"
        umsg = self.ev("user.message", f'{{"content":{_jstr(text)},"transformedContent":"<current_datetime>{stamp}</current_datetime>\\n\\n{esc(text)}",'
                                       f'"messageId":"{msg_id}","supportedNativeDocumentMimeTypes":[],"delivery":"idle","interactionId":"{interaction}",'
                                       f'"turnId":"0","parentAgentTaskId":"{self.uuid()}"}}')
        user_ms = self.t
        self.ctx_tokens += len(text) // 3 + 20
        if first and self.sys_after_prompt and not self.small:
            self.tick(5, 40)
            self.system_message(interaction)
        if self.pending_auto:
            self.tick(50, 400)
            self.ev("session.auto_mode_resolved", jdump({"chosenModel": self.pending_auto, "routingMethod": self.ch(("classifier", "classifier", "default"))}))
            model_box[0] = self.pending_auto
            self.pending_auto = None
        self.cur_snapshot = {"snapshotId": self.uuid(), "eventId": umsg, "userMessage": text, "timestamp": iso(user_ms - self.ri(40, 60)),
                             "files": {}, "byPath": {}} if self.want_snapshots else None
        nturns = p.get("turns") or rng.choices((1, 2, 3, 4, 5, 6, 7, 8), (8, 18, 22, 18, 12, 9, 7, 6))[0]
        error = rng.random() < 0.02
        reply = None
        for k in range(nturns):
            model = model_box[0]
            turn = str(k)
            last = k == nturns - 1
            self.tick(1, 30)
            self.ev("assistant.turn_start", f'{{"turnId":"{turn}","interactionId":"{interaction}"}}')
            if first and k == 0 and self.utility:
                self.title_events(self.name or text[:40])
            if error and last:
                self.tick(500, 30000)
                self.ev("assistant.turn_end", f'{{"turnId":"{turn}"}}')
                self.tick(1, 20)
                status = self.ch((429, 500, 503))
                message = {429: "Sorry, you have been rate-limited. Please wait a moment before trying again.",
                           500: "Request failed due to a transient API error. Retrying...",
                           503: "The model is temporarily unavailable (503). Try again later."}[status]
                self.ev("session.error", jdump({"errorType": "rate_limit" if status == 429 else "query", "message": message,
                                                "statusCode": status, "originatingMessageId": msg_id}))
                break
            sub = p.get("subagent_turn") == k and not last
            if last:
                names: list[str] = []
            elif sub:
                names = ["task"]
            else:
                ntools = rng.choices((1, 2, 3, 4), (55, 28, 12, 5))[0]
                names = rng.choices(("bash", "view", "edit", "create", "grep", "glob", "web_fetch", "apply_patch"),
                                    (26, 28, 14, 4, 12, 6, 4, 6), k=ntools)
            if last:
                content = self.reply_text(100, 2000)
                out = max(50, min(3000, len(content) // 4 + self.ri(20, 300)))
            else:
                content = ""
                out = self.ri(50, 400)
            api = self.usage(model, out, "user" if k == 0 else "agent", names, self.auto, self.prompt_idx)
            self.tick(10, 80)
            if sub:
                calls = [{"id": f"call_{rng.getrandbits(96):024x}", "name": "task", "type": "function",
                          "args": f'{{"description":"Explore the {self.name_} code","prompt":{_jstr("Find every caller of " + self.ch(IDENTS) + " and summarise how each one handles errors.")},"agent_type":"explore"}}',
                          "intent": "Explore the codebase", "title": "Delegating to sub-agent"}]
            else:
                calls = [self.plan_tool(n) for n in names]
            reqs = ",".join(f'{{"toolCallId":"{cl["id"]}","name":"{cl["name"]}","arguments":{cl["args"]},"type":"{cl["type"]}",'
                            f'"intentionSummary":{_jstr(cl["intent"])},"toolTitle":"{cl["title"]}"}}' for cl in calls)
            reasoning = ""
            if REASONING[model] and rng.random() < 0.3:
                reasoning = f',"reasoningText":{_jstr(self.ch(SUBJECTS).capitalize() + " needs a look first; " + self.ch(CLAUSES) + ".")}'
            self.ev("assistant.message", f'{{"messageId":"{self.uuid()}","originatingMessageId":"{msg_id}","model":"{model}","content":{_jstr(content)},'
                                         f'"toolRequests":[{reqs}]{reasoning},"interactionId":"{interaction}","turnId":"{turn}","rte":false,"apiCallId":"{api}"}}')
            if last:
                reply = content
            for cl in calls:
                if sub:
                    self.subagent(cl, model, interaction, turn)
                else:
                    if self.hooks and cl["name"] == "bash":
                        self.hook("preToolUse", {"toolName": "bash", "toolArgs": json.loads(cl["args"])})
                    self.run_tool(cl, model, interaction, turn)
            self.tick(2, 40)
            self.ev("assistant.turn_end", f'{{"turnId":"{turn}"}}')
            if not last and "subagent_turn" not in p and rng.random() < 0.012:
                self.tick(500, 5000)
                self.ev("abort", '{"reason":"user_initiated"}')
                break
        if self.cur_snapshot is not None and self.cur_snapshot["files"]:
            s = self.cur_snapshot
            files = s["files"]
            self.snapshots.append({"snapshotId": s["snapshotId"], "eventId": s["eventId"], "userMessage": s["userMessage"],
                                   "timestamp": s["timestamp"], "files": files, "backupFiles": [], "fileCount": len(files),
                                   "linesAdded": sum(f["linesAdded"] for f in files.values()),
                                   "linesRemoved": sum(f["linesRemoved"] for f in files.values())})
        self.turn_rows.append((self.sid, self.prompt_idx, text, reply, iso(self.t)))
        self.prompt_idx += 1

    def subagent(self, call: dict, model: str, interaction: str, turn: str) -> None:
        rng = self.rng
        cid = call["id"]
        agent = self.uuid()
        sub_model = self.ch(("gpt-5-mini", "claude-sonnet-4.5", model))
        sub_start = self.t
        self.tick(2, 30)
        self.ev("tool.execution_start", f'{{"toolCallId":"{cid}","toolName":"task","arguments":{call["args"]},"turnId":"{turn}","model":"{model}","toolTitle":"{call["title"]}"}}')
        self.tick(5, 50)
        self.ev("subagent.started", f'{{"toolCallId":"{cid}","agentName":"explore","agentDisplayName":"Explore Agent","agentDescription":"Fast codebase exploration","model":"{sub_model}"}}')
        task = json.loads(call["args"])["prompt"]
        self.tick(5, 50)
        self.ev("user.message", f'{{"content":{_jstr(task)},"messageId":"{self.uuid()}","interactionId":"{interaction}","turnId":"0","delivery":"idle"}}', agent)
        sub_totals = Totals()
        saved_ctx, saved_prev = self.ctx_tokens, self.prev_input
        self.ctx_tokens, self.prev_input = self.ri(6000, 9000), 0
        n = self.ri(2, 4)
        answer = ""
        for k in range(n):
            last = k == n - 1
            self.tick(1, 20)
            self.ev("assistant.turn_start", f'{{"turnId":"{k}","interactionId":"{interaction}"}}', agent)
            names = [] if last else rng.choices(("view", "grep", "glob"), k=self.ri(1, 3))
            content = self.reply_text(200, 900) if last else ""
            out = len(content) // 4 + 60 if last else self.ri(50, 300)
            api = self.usage(sub_model, out, "sub-agent", names, False, self.prompt_idx, agent=agent, parent_call=cid,
                             sub_totals=sub_totals, duplicate_for_main=True)
            calls = [self.plan_tool(nm) for nm in names]
            reqs = ",".join(f'{{"toolCallId":"{cl["id"]}","name":"{cl["name"]}","arguments":{cl["args"]},"type":"function","toolTitle":"{cl["title"]}"}}' for cl in calls)
            self.tick(5, 50)
            self.ev("assistant.message", f'{{"messageId":"{self.uuid()}","model":"{sub_model}","content":{_jstr(content)},"toolRequests":[{reqs}],"interactionId":"{interaction}","turnId":"{k}","apiCallId":"{api}"}}', agent)
            for cl in calls:
                self.tick(2, 30)
                self.ev("tool.execution_start", f'{{"toolCallId":"{cl["id"]}","toolName":"{cl["name"]}","arguments":{cl["args"]},"turnId":"{k}","model":"{sub_model}"}}', agent)
                self.tick(5, 200)
                body = self.c.pools["grep" if cl["name"] != "view" else "code"].take(rng, min(output_size(rng), 30000))
                self.ev("tool.execution_complete", f'{{"toolCallId":"{cl["id"]}","model":"{sub_model}","turnId":"{k}","success":true,"result":{{"content":"{body}"}}}}', agent)
            self.tick(1, 20)
            self.ev("assistant.turn_end", f'{{"turnId":"{k}"}}', agent)
            answer = content
        self.tick(5, 40)
        self.ev("session.shutdown", jdump({"shutdownType": "routine", "sessionStartTime": sub_start,
                                           "codeChanges": {"linesAdded": 0, "linesRemoved": 0, "filesModified": []},
                                           "modelMetrics": sub_totals.metrics(), "currentModel": sub_model}), agent)
        self.tick(5, 40)
        self.ev("subagent.completed", f'{{"toolCallId":"{cid}","agentName":"explore","agentDisplayName":"Explore Agent","model":"{sub_model}"}}')
        self.ctx_tokens, self.prev_input = saved_ctx + len(answer) // 4, saved_prev
        self.tick(5, 40)
        self.ev("tool.execution_complete", f'{{"toolCallId":"{cid}","model":"{model}","interactionId":"{interaction}","turnId":"{turn}","rte":false,"success":true,"result":{{"content":{_jstr(answer)}}},"toolTelemetry":{{}}}}')

    def system_message(self, interaction: str) -> None:
        body = self.c.system_prompt(self.rng, self.cwd)
        self.ev("system.message", f'{{"role":"system","content":"{body}","metadata":{{"variables":{{"gitCommitTrailer":{{"sessionId":null,"clientName":"github/cli","coauthorEnabled":true}}}}}},"interactionId":"{interaction}"}}')

    def shutdown(self, model: str) -> str:
        self.tick(200, 30000)
        data = {"shutdownType": "routine", "totalPremiumRequests": 0, "totalApiDurationMs": self.api_ms,
                "sessionStartTime": self.start, "eventsFileSizeBytes": self.chars,
                "codeChanges": {"linesAdded": self.lines_added, "linesRemoved": self.lines_removed, "filesModified": list(self.files_modified)},
                "modelMetrics": self.totals.metrics(), "currentModel": model,
                "currentTokens": self.ctx_tokens, "systemTokens": self.sys_tokens,
                "conversationTokens": max(0, self.ctx_tokens - self.sys_tokens - 5959), "toolDefinitionsTokens": 5959}
        eid = self.ev("session.shutdown", jdump(data))
        self.shutdown_ids.append(eid)
        return eid

    # -- whole session -------------------------------------------------------------------
    def generate(self) -> None:
        rng = self.rng
        kind = self.kind
        model = rng.choices(MODELS, MODEL_WEIGHTS)[0]
        self.hooks = rng.random() < 0.10 and not self.small
        self.utility = rng.random() < 0.85 and not self.small
        self.sys_after_prompt = rng.random() < 0.5
        self.want_snapshots = rng.random() < 0.5 and not self.small
        self.pending_auto = None
        self.auto = False
        self.cur_snapshot = None
        self.sys_tokens = self.ri(4000, 9000)
        self.ctx_tokens = self.sys_tokens + 5959
        self.prev_input = 0
        nprompts = rng.choices(range(1, 13), (20, 18, 14, 11, 9, 7, 6, 5, 4, 3, 2, 1))[0]
        if kind in ("two_models", "subagent") and nprompts < 2:
            nprompts = 2
        plans = [{"clear": rng.random() < 0.03} for _ in range(nprompts)]
        if self.small:
            nprompts, plans = 1, [{"turns": 1}]
        if kind == "subagent":
            plans[rng.randrange(nprompts)].update(turns=self.ri(3, 5), subagent_turn=self.ri(0, 1))
        switch_at = self.ri(1, nprompts - 1) if kind == "two_models" else None

        self.ev("session.start", f'{{"sessionId":"{self.sid}","version":1,"producer":"copilot-agent","copilotVersion":"{VERSION}",'
                                 f'"startTime":"{iso(self.start)}","selectedModel":"{model}","contextTier":null,'
                                 f'"context":{{"cwd":"{self.cwd}","gitRoot":"{self.cwd}","branch":"{self.branch}"}},'
                                 f'"alreadyInUse":false,"remoteSteerable":false}}')
        self.tick(50, 400)
        mc = {"newModel": model, "cause": "initial_resolution", "source": "automatic"}
        if REASONING[model]:
            mc["reasoningEffort"] = REASONING[model]
        mc["contextTier"] = None
        self.ev("session.model_change", jdump(mc))
        if self.hooks:
            self.tick(5, 50)
            self.hook("sessionStart", {"source": "new", "cwd": self.cwd})
        if rng.random() < 0.15:
            self.tick(5, 200)
            self.ev("session.info", jdump({"message": self.ch(TIPS), "infoType": "tip"}))
        if not self.sys_after_prompt and not self.small:
            self.tick(300, 900)
            self.system_message(self.uuid())
        if rng.random() < 0.03:  # picked Auto before the first prompt
            self.model_switch(model, "auto")
            self.pending_auto = rng.choices(MODELS, MODEL_WEIGHTS)[0]
            self.auto = True
        box = [model]
        resumes = 0
        if kind in ("resumed", "resumed_repeat"):
            resumes = 2 if (kind == "resumed" and rng.random() < 0.2) else 1
            if nprompts < resumes + 1:
                nprompts = resumes + 1
                plans += [{} for _ in range(nprompts - len(plans))]
        resume_points = sorted(rng.sample(range(1, nprompts), resumes)) if resumes and kind == "resumed" else []
        if kind == "resumed_repeat":
            resume_points = [nprompts]
        for i in range(nprompts):
            if i in resume_points:
                self.shutdown(box[0])
                self.resume(box[0])
            if i == switch_at:
                current = box[0]
                if rng.random() < 0.34:
                    self.model_switch(current, "auto")
                    self.pending_auto = self.ch([m for m in MODELS if m != current])
                    self.auto = True
                else:
                    new = self.ch([m for m in MODELS if m != current])
                    self.model_switch(current, new)
                    box[0] = new
                    self.auto = False
            self.prompt(box, plans[i])
        if kind in ("no_shutdown", "cut"):
            return
        if kind == "resumed_repeat":
            self.shutdown(box[0])
            self.resume(box[0])
            self.lines.append(self.lines[-2])  # the first shutdown, written again (same event id)
            self.chars += len(self.lines[-1]) + 1
            return
        self.shutdown(box[0])

    def resume(self, model: str) -> None:
        rng = self.rng
        self.t += self.ri(300_000, max(300_000, min(30 * 3_600_000, END_MS + 3_600_000 - self.t)))
        if rng.random() < 0.3:
            self.branch = self.ch(self.c.branches[self.name_])
        self.ev("session.resume", jdump({"resumeTime": iso(self.t), "eventCount": len(self.lines), "selectedModel": model,
                                         "context": {"cwd": self.cwd, "gitRoot": self.cwd, "branch": self.branch}}))

    def finish_text(self) -> str:
        lines = self.lines
        if self.kind == "garbage" and len(lines) > 4:
            at = self.ri(2, len(lines) - 2)
            lines.insert(at, '{"type":"user.message","data":{"content":"oops')
        text = "\n".join(lines) + "\n"
        if self.kind == "cut":
            last = lines[-1]
            keep = self.ri(max(1, len(last) // 5), len(last) - 2)
            text = "\n".join(lines[:-1]) + "\n" + last[:keep]
        return text


# ---------------------------------------------------------------------------------------------
# The whole home.

class Corpus:
    def __init__(self, out: Path, seed: int, small: bool = False):
        self.out = out
        self.small = small
        self.home = out / ".copilot"
        self.seed = seed
        self.rng = random.Random(f"gen-corpus:{seed}:main")
        self.pools = build_pools(random.Random(f"gen-corpus:{seed}:pools"))
        prng = random.Random(f"gen-corpus:{seed}:projects")
        self.branches = {p[0]: ["main"] + prng.sample(BRANCH_POOL, prng.randint(2, 4)) for p in PROJECTS}
        self.sys_variants: dict[str, list[str]] = {}
        self.sessions_meta: list[dict] = []
        self.history: list[tuple[int, str]] = []
        self.grants: dict[str, list[dict]] = {}
        self.log_sessions: list[tuple[int, int, str]] = []
        self.events_bytes = 0
        self.kind_counts: dict[str, int] = {}

    def system_prompt(self, rng: random.Random, cwd: str) -> str:
        variants = self.sys_variants.get(cwd)
        if variants is None:
            vr = random.Random(f"gen-corpus:{self.seed}:system:{cwd}")
            variants = []
            for _ in range(4):
                extras = vr.sample(SYSTEM_EXTRA, vr.randint(1, len(SYSTEM_EXTRA)))
                text = SYSTEM_BASE + "".join(extras)
                text += f"\n<environment_context>\ncwd: {cwd}\ngit root: {cwd}\noperating system: Linux\nshell: bash\n</environment_context>\n"
                while len(text) < vr.randint(2000, 6000):
                    text += f"\n* {vr.choice(SUBJECTS).capitalize()}: {vr.choice(CLAUSES)}."
                variants.append(esc(text))
            self.sys_variants[cwd] = variants
        return rng.choice(variants)

    def make_prompt(self, rng: random.Random, lang: str, first: bool) -> tuple[str, str]:
        while True:
            p, t = rng.choice(PROMPTS)
            if t is not None or not first:
                break
        f = rng.choice(FILES[lang])
        fill = {"f": f, "b": f.rsplit("/", 1)[-1], "g": rng.choice(IDENTS), "c": rng.choice(COMMANDS[lang]), "w": rng.choice(WORDS)}
        text = p.format(**fill)
        title = (t or "Follow-up").format(**fill)
        return text, title

    def pick_kind(self, rng: random.Random) -> str:
        u = rng.random()
        if self.small:
            return "no_shutdown" if u < 0.05 else "plain"
        for limit, kind in ((0.12, "resumed"), (0.14, "resumed_repeat"), (0.19, "no_shutdown"), (0.22, "two_models"),
                            (0.24, "subagent"), (0.25, "cut"), (0.26, "garbage")):
            if u < limit:
                return kind
        return "plain"

    def new_session(self, rng: random.Random, kind: str) -> Session:
        project = rng.choices(PROJECTS, [p[2] for p in PROJECTS])[0]
        branch = rng.choice(self.branches[project[0]])
        start = END_MS - WINDOW_MS + rng.randrange(WINDOW_MS - 6 * 3_600_000)
        sid = make_uuid(rng)()
        srng = random.Random(rng.getrandbits(64))
        s = Session(self, srng, sid, project, branch, start, kind)
        s.generate()
        return s

    def run(self, size_target: int | None, count: int | None, store: "Store") -> None:
        rng = self.rng
        state = self.home / "session-state"
        n = 0
        while True:
            if count is not None and n >= count:
                break
            if size_target is not None and self.events_bytes >= size_target:
                break
            kind = self.pick_kind(rng)
            s = self.new_session(rng, kind)
            n += 1
            self.kind_counts[kind] = self.kind_counts.get(kind, 0) + 1
            data = s.finish_text().encode()
            self.events_bytes += len(data)
            d = state / s.sid
            (d / "checkpoints").mkdir(parents=True)
            with open(d / "events.jsonl", "wb") as fh:
                fh.write(data)
            (d / "checkpoints" / "index.md").write_text(CHECKPOINT_INDEX)
            if s.want_snapshots or (rng.random() < 0.6 and not self.small):
                (d / "rewind-file-snapshots").mkdir()
                (d / "rewind-file-snapshots" / "tracking.json").write_text('{"schema":1,"tracking":true}')
                if s.want_snapshots:
                    (d / "rewind-file-snapshots" / "index.json").write_text(json.dumps({"schema": 1, "snapshots": s.snapshots}, indent=2, ensure_ascii=False))
            last_ms = s.t
            (d / "workspace.yaml").write_text(self.workspace_yaml(rng, s.sid, s.cwd, "github/cli", s.name, s.start, last_ms,
                                                                  s.shutdown_ids[-1] if s.shutdown_ids else None))
            self.record(s, in_store=rng.random() < 0.8 and not self.small, store=store)
            if self.small:
                continue
            if rng.random() < 0.1:
                self.log_sessions.append((s.start - rng.randint(400, 900), rng.randint(1000, 99999), s.sid, last_ms))
            if rng.random() < 0.03:
                self.autopilot_dir(rng)
            if rng.random() < 0.02:
                gone = self.new_session(rng, "plain")
                self.kind_counts["deleted"] = self.kind_counts.get("deleted", 0) + 1
                self.record(gone, in_store=True, store=store, deleted=True)
        self.main_sessions = n

    def record(self, s: Session, in_store: bool, store: "Store", deleted: bool = False) -> None:
        self.history.extend(s.prompts)
        self.history.extend(s.history_extra)
        for cwd, approval in s.grants:
            lst = self.grants.setdefault(cwd, [])
            if approval not in lst:
                lst.append(approval)
        if not deleted:
            self.sessions_meta.append({"id": s.sid, "cwd": s.cwd, "start": s.start})
        if in_store:
            store.add_session((s.sid, s.cwd, None, None, s.branch, s.name, iso(s.start), iso(s.t)),
                              s.turn_rows, s.file_rows, s.usage_rows)

    def autopilot_dir(self, rng: random.Random) -> None:
        sid = make_uuid(rng)()
        project = rng.choices(PROJECTS, [p[2] for p in PROJECTS])[0]
        start = END_MS - WINDOW_MS + rng.randrange(WINDOW_MS - 6 * 3_600_000)
        d = self.home / "session-state" / sid
        (d / "checkpoints").mkdir(parents=True)
        (d / "checkpoints" / "index.md").write_text(CHECKPOINT_INDEX)
        (d / "workspace.yaml").write_text(self.workspace_yaml(rng, sid, f"/home/mona/code/{project[0]}", "github/autopilot", None,
                                                              start, start + rng.randint(800, 3000), None))
        self.kind_counts["autopilot_only"] = self.kind_counts.get("autopilot_only", 0) + 1

    @staticmethod
    def workspace_yaml(rng: random.Random, sid: str, cwd: str, client: str, name: str | None, created: int, updated: int,
                       last_event: str | None) -> str:
        out = [f"id: {sid}", f"cwd: {cwd}", f"client_name: {client}"]
        if name is not None:
            if ": " in name or name.startswith(("'", '"', "-", "[", "{", "#", "&", "*", "!", "|", ">", "%", "@", "`")):
                name = "'" + name.replace("'", "''") + "'"
            out.append(f"name: {name}")
        out += ["user_named: false", "summary_count: 0", "fork_count: 0", f"created_at: {iso(created)}", f"updated_at: {iso(updated)}"]
        u = rng.random()
        if u < 0.10 and last_event:
            out += [f"remote_steerable: {'true' if rng.random() < 0.5 else 'false'}", f"mc_task_id: {make_uuid(rng)()}",
                    f"mc_session_id: {make_uuid(rng)()}", f"mc_last_event_id: {last_event}"]
        elif u < 0.35:
            out += ["remote_steerable: false", "mc_task_id: null", "mc_session_id: null", "mc_last_event_id: null"]
        return "\n".join(out) + "\n"

    # -- home-level files ----------------------------------------------------------------
    def home_files(self) -> None:
        rng = random.Random(f"gen-corpus:{self.seed}:home")
        h = self.home
        # command history: newest first, distinct, at most 50
        seen: dict[str, None] = {}
        for _, text in sorted(self.history, key=lambda e: (-e[0], e[1])):
            if text not in seen:
                seen[text] = None
                if len(seen) == 50:
                    break
        (h / "command-history-state.json").write_text(jdump({"commandHistory": list(seen)}))
        # permissions granted for a location
        if self.grants:
            locs = {cwd: {"tool_approvals": approvals} for cwd, approvals in sorted(self.grants.items())}
            (h / "permissions-config.json").write_text(jdump({"locations": locs}))
        (h / "settings.json").write_text('{\n  // user settings\n  "model": "claude-sonnet-4.5",\n  "allowedUrls": [\n'
                                         '    "https://docs.github.com",\n    "https://docs.rs",\n    "https://pkg.go.dev"\n  ],\n'
                                         '  "banner": "never"\n}\n')
        first = min((m["start"] for m in self.sessions_meta), default=END_MS - WINDOW_MS) - 60_000
        (h / "config.json").write_text(f'// User settings belong in settings.json.\n// This file is managed automatically.\n{{\n  "firstLaunchAt": "{iso(first)}"\n}}\n')
        # sidebar per project, newest first
        by_cwd: dict[str, list[dict]] = {}
        for m in self.sessions_meta:
            by_cwd.setdefault(m["cwd"], []).append(m)
        side = h / "sidebar-sessions-state"
        side.mkdir(parents=True, exist_ok=True)
        for cwd in sorted(by_cwd):
            ids = [m["id"] for m in sorted(by_cwd[cwd], key=lambda m: (-m["start"], m["id"]))][:100]
            (side / f"{hashlib.sha256(cwd.encode()).hexdigest()}.json").write_text(jdump({"schemaVersion": 1, "cwd": cwd, "sessionIds": ids}))
        # process logs
        logs = h / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        (logs / ".copilot-log.lock").write_bytes(b"")
        if not self.log_sessions and self.sessions_meta:
            m = self.sessions_meta[0]
            self.log_sessions.append((m["start"] - 600, 4242, m["id"], m["start"] + 5000))
        names: set[str] = set()
        for start, pid, sid, end in self.log_sessions:
            name = f"process-{start}-{pid}.log"
            while name in names:
                pid += 1
                name = f"process-{start}-{pid}.log"
            names.add(name)
            t = start + rng.randint(3, 8)
            out = [f"{iso(t)} [INFO] Proxy configuration: HTTP_PROXY=, HTTPS_PROXY=, NO_PROXY="]
            t += rng.randint(1, 20)
            out.append(f"{iso(t)} [INFO] Starting Copilot CLI: {VERSION}")
            t += rng.randint(100, 400)
            out.append(f"{iso(t)} [INFO] Signed in to https://github.com as mona.")
            for _ in range(rng.randint(8, 16)):
                t += rng.randint(0, 60)
                if rng.random() < 0.2:
                    out.append(f"{iso(t)} [WARNING] {rng.choice(WARN_LOG)}")
                else:
                    out.append(f"{iso(t)} [INFO] {rng.choice(NOISE_LOG)}")
            t = max(t + 1, start + 550)
            out.append(f"{iso(t)} [INFO] Workspace initialized: {sid} (checkpoints: 0)")
            t += rng.randint(1, 40)
            out.append(f"{iso(t)} [INFO] Registering foreground session: {sid}")
            for _ in range(rng.randint(4, 12)):
                t += rng.randint(10, 3000)
                out.append(f"{iso(t)} [INFO] {rng.choice(NOISE_LOG)}")
            t = max(t, end) + rng.randint(50, 500)
            out.append(f"{iso(t)} [INFO] Unregistering foreground session: {sid}")
            t += rng.randint(1, 30)
            out.append(f"{iso(t)} [INFO] Starting graceful shutdown of CLI server")
            (logs / name).write_text("\n".join(out) + "\n")
        # package junk
        pkg = h / "pkg" / "linux-x64" / VERSION
        pkg.mkdir(parents=True, exist_ok=True)
        junk = ["#!/usr/bin/env node", '"use strict";']
        for i in range(120):
            junk.append(f"var {rng.choice(WORDS)}_{i}=function({rng.choice(WORDS)}){{return {rng.choice(IDENTS)}({rng.choice(WORDS)},{rng.randint(0, 9999)})}};")
        (pkg / "cli-main.js").write_text("\n".join(junk) + "\n")


# ---------------------------------------------------------------------------------------------
# session-store.db: rows only in the WAL, like the CLI leaves it.

def load_schema() -> str:
    path = Path(__file__).resolve().with_name("make-store-fixture.py")
    spec = importlib.util.spec_from_file_location("make_store_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SCHEMA


class Store:
    """Rows are buffered, then inserted sorted by session id (so the session-keyed indexes grow at
    their right edge and the WAL stays near the size of the data), ~1000 rows per transaction."""
    BATCH = 1000

    def __init__(self):
        self.sessions: list[tuple] = []
        self.rows = 0

    def add_session(self, session: tuple, turns: list, files: list, usage: list) -> None:
        self.sessions.append((session, turns, files, usage))

    def write(self, home: Path, seed: int) -> tuple[int, str]:
        """Writes session-store.db (header page only) and its -wal. Returns (WAL frames, how the salts were fixed)."""
        seeded = seed_sqlite_prng(seed)
        with tempfile.TemporaryDirectory(prefix="gen-corpus-store-") as tmp:
            db = Path(tmp) / "session-store.db"
            conn = sqlite3.connect(db, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA wal_autocheckpoint=0")
            conn.executescript("BEGIN;" + load_schema() + "INSERT INTO schema_version VALUES (8);\nCOMMIT;")
            pending = 0
            conn.execute("BEGIN")
            for session, turns, files, usage in sorted(self.sessions, key=lambda e: e[0][0]):
                conn.execute("INSERT INTO sessions (id, cwd, repository, host_type, branch, summary, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)", session)
                if turns:
                    conn.executemany("INSERT INTO turns (session_id, turn_index, user_message, assistant_response, timestamp) VALUES (?,?,?,?,?)", turns)
                if files:
                    conn.executemany("INSERT INTO session_files (session_id, file_path, tool_name, turn_index, first_seen_at) VALUES (?,?,?,?,?)", files)
                if usage:
                    conn.executemany(
                        "INSERT INTO assistant_usage_events (session_id, turn_index, agent_id, parent_tool_call_id, model, copilot_usage_model,"
                        " input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, total_nano_aiu,"
                        " request_multiplier, duration_ms, time_to_first_token_ms, output_ttft_ms, inter_token_latency_ms, initiator,"
                        " api_endpoint, reasoning_effort, finish_reason, content_filter_triggered, token_details_json, created_at)"
                        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", usage)
                n = 1 + len(turns) + len(files) + len(usage)
                pending += n
                self.rows += n
                if pending >= self.BATCH:
                    conn.execute("COMMIT")
                    conn.execute("BEGIN")
                    pending = 0
            conn.execute("COMMIT")
            # copied while the connection is open: nothing has been checkpointed into the main file
            shutil.copyfile(db, home / "session-store.db")
            shutil.copyfile(f"{db}-wal", home / "session-store.db-wal")
            conn.close()
        if seeded:
            return wal_frames(home / "session-store.db-wal"), "seeded"
        return reseal_wal(home / "session-store.db-wal", seed), "resealed"


def seed_sqlite_prng(seed: int) -> bool:
    """SQLite draws the WAL salts from its PRNG. Seed it (SQLITE_TESTCTRL_PRNG_SEED through ctypes)
    and check that seeding works; False means the salts must be rewritten afterwards."""
    if os.environ.get("GEN_CORPUS_NO_PRNG_SEED"):
        return False
    try:
        import ctypes
        import _sqlite3
        control = ctypes.CDLL(_sqlite3.__file__).sqlite3_test_control
        control.restype = ctypes.c_int
        value = random.Random(f"gen-corpus:{seed}:sqlite").getrandbits(31) | 1
        probe = sqlite3.connect(":memory:")
        draws = []
        for _ in range(2):
            control(ctypes.c_int(28), ctypes.c_int(value), ctypes.c_void_p(None))
            draws.append(probe.execute("SELECT random()").fetchone()[0])
        probe.close()
        control(ctypes.c_int(28), ctypes.c_int(value), ctypes.c_void_p(None))
        return draws[0] == draws[1]
    except Exception:
        return False


def wal_frames(path: Path) -> int:
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(32)
    if len(head) < 32:
        return 0
    return (size - 32) // (24 + struct.unpack_from(">I", head, 8)[0])


def reseal_wal(path: Path, seed: int) -> int:
    """Sets the WAL salts from the seed and recomputes every checksum, frame by frame in place."""
    with open(path, "r+b") as fh:
        head = bytearray(fh.read(32))
        if len(head) < 32:
            return 0
        magic, _, page_size = struct.unpack_from(">III", head, 0)
        order = ">" if magic & 1 else "<"
        salt = random.Random(f"gen-corpus:{seed}:wal").getrandbits(64).to_bytes(8, "big")
        head[16:24] = salt
        s0, s1 = wal_checksum(order, bytes(head[:24]), 0, 0)
        struct.pack_into(">II", head, 24, s0, s1)
        fh.seek(0)
        fh.write(head)
        frames, off = 0, 32
        while True:
            fh.seek(off)
            frame = bytearray(fh.read(24 + page_size))
            if len(frame) < 24 + page_size:
                break
            frame[8:16] = salt
            s0, s1 = wal_checksum(order, bytes(frame[:8]), s0, s1)
            s0, s1 = wal_checksum(order, bytes(frame[24:]), s0, s1)
            struct.pack_into(">II", frame, 16, s0, s1)
            fh.seek(off)
            fh.write(frame[:24])
            off += 24 + page_size
            frames += 1
    return frames


def wal_checksum(order: str, data: bytes, s0: int, s1: int) -> tuple[int, int]:
    """SQLite's WAL checksum (pairs of 32-bit words, Fibonacci-weighted sums), unrolled 8 pairs at a time."""
    mask = 0xFFFFFFFF
    whole = len(data) - len(data) % 64
    for a0, b0, a1, b1, a2, b2, a3, b3, a4, b4, a5, b5, a6, b6, a7, b7 in struct.iter_unpack(f"{order}16I", data[:whole]):
        s0 += a0 + s1; s1 += b0 + s0
        s0 += a1 + s1; s1 += b1 + s0
        s0 += a2 + s1; s1 += b2 + s0
        s0 += a3 + s1; s1 += b3 + s0
        s0 += a4 + s1; s1 += b4 + s0
        s0 += a5 + s1; s1 += b5 + s0
        s0 += a6 + s1; s1 += b6 + s0
        s0 += a7 + s1; s1 += b7 + s0
        s0 &= mask; s1 &= mask
    for a, b in struct.iter_unpack(f"{order}2I", data[whole:]):
        s0 = (s0 + a + s1) & mask
        s1 = (s1 + b + s0) & mask
    return s0, s1


# ---------------------------------------------------------------------------------------------

def parse_size(text: str) -> int:
    t = text.strip().upper().removesuffix("B")
    mult = 1
    if t and t[-1] in "KMG":
        mult = {"K": 10**3, "M": 10**6, "G": 10**9}[t[-1]]
        t = t[:-1]
    try:
        value = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (use e.g. 500MB, 1G, 200K)")
    if value <= 0:
        raise argparse.ArgumentTypeError("size must be positive")
    return int(value * mult)


def main() -> int:
    ap = argparse.ArgumentParser(description="Generate a synthetic Copilot CLI 1.0.102 home (OUT_DIR/.copilot).")
    ap.add_argument("out_dir", metavar="OUT_DIR")
    ap.add_argument("--size", type=parse_size, help="target total size of the events.jsonl files (K/M/G, decimal)")
    ap.add_argument("--sessions", type=int, help="number of sessions with an event log (a cap when --size is given)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--small", action="store_true", help="sessions of a few lines each, no session store (many small files)")
    ap.add_argument("--force", action="store_true", help="replace an existing non-empty OUT_DIR/.copilot (and VS Code part)")
    ap.add_argument("--vscode", type=parse_size, metavar="SIZE",
                    help="also VS Code Copilot Chat sessions: SIZE of chat session files under OUT_DIR/.config/Code*/User")
    ap.add_argument("--check", action="store_true", help="replay OUT_DIR's VS Code chat sessions against vscode-expected.json")
    args = ap.parse_args()
    out = Path(args.out_dir)
    if args.check:
        return vscode_chat().check(out)
    if args.size is None and args.sessions is None and args.vscode is None:
        ap.error("give --size and/or --sessions, and/or --vscode")
    if args.sessions is not None and args.sessions < 0:
        ap.error("--sessions must be >= 0")
    cli = args.size is not None or args.sessions is not None
    home = out / ".copilot"
    taken = [home] if cli else []
    if args.vscode is not None:
        taken += [out / ".config" / "Code", out / ".config" / "Code - Insiders", out / "vscode-expected.json"]
    for path in taken:
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            if not args.force:
                print(f"gen-corpus: {path} already exists and is not empty (use --force to replace it)", file=sys.stderr)
                return 2
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
    began = time.perf_counter()
    pools = None
    if cli:
        (home / "session-state").mkdir(parents=True, exist_ok=True)
        corpus = Corpus(out, args.seed, args.small)
        pools = corpus.pools
        store = Store()
        corpus.run(args.size, args.sessions, store)
        corpus.home_files()
        frames, salts = store.write(home, args.seed) if not args.small else (0, "none")
        took = time.perf_counter() - began
        kinds = " ".join(f"{k}={v}" for k, v in sorted(corpus.kind_counts.items()))
        mb = corpus.events_bytes / 1e6
        print(f"gen-corpus: {corpus.main_sessions} sessions, {corpus.events_bytes} bytes of events.jsonl ({mb:.1f} MB), "
              f"{store.rows} store rows in {frames} WAL frames (salts {salts}), {took:.2f} s ({mb / took if took else 0:.1f} MB/s) [{kinds}]",
              file=sys.stderr)
    if args.vscode is not None:
        began = time.perf_counter()
        expected = vscode_chat().generate(sys.modules[__name__], out, args.seed, args.vscode, pools)
        took = time.perf_counter() - began
        mb = expected["chat_session_bytes"] / 1e6
        counted = expected["usage"]["counted"]["totals"]
        kinds = " ".join(f"{k}={v}" for k, v in expected["session_kinds"].items())
        print(f"gen-corpus: VS Code: {expected['sessions']} chat sessions, {expected['requests']} requests, "
              f"{expected['chat_session_bytes']} bytes of chat session files ({mb:.1f} MB; {expected['files']['jsonl']} .jsonl, "
              f"{expected['files']['json']} .json, {expected['files']['json_superseded']} .json beside a .jsonl), "
              f"{expected['compactions']} compactions, counted {counted['requests']} requests / {counted['total']} tokens "
              f"(see {out / 'vscode-expected.json'}), {took:.2f} s ({mb / took if took else 0:.1f} MB/s) [{kinds}]",
              file=sys.stderr)
    return 0


def vscode_chat():
    """scripts/lib/vscode_chat.py, the VS Code part, loaded only when asked for."""
    path = Path(__file__).resolve().parent / "lib" / "vscode_chat.py"
    spec = importlib.util.spec_from_file_location("vscode_chat", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    sys.exit(main())
