"""The VS Code part of scripts/gen-corpus.py (`--vscode SIZE`, `--check`): GitHub Copilot Chat sessions
as VS Code keeps them in a home's `.config/Code/User` (and a few in `.config/Code - Insiders/User`).

    OUT/.config/Code/User/workspaceStorage/<hash>/workspace.json          {"folder": "file:///..."}
    OUT/.config/Code/User/workspaceStorage/<hash>/chatSessions/<id>.jsonl the live mutation log
    OUT/.config/Code/User/workspaceStorage/<hash>/chatSessions/<id>.json  a whole snapshot (older builds)
    OUT/.config/Code/User/globalStorage/emptyWindowChatSessions/<id>.jsonl chats opened with no folder
    OUT/vscode-expected.json                                              what a reader must find (below)

A `.jsonl` is written as VS Code's ObjectMutationLog (objectMutationLog.ts, with the chat schema of
chatSessionOperationLog.ts) writes it: a kind-0 line with the whole state, then per write the entries
of its diff against the previous write: the request pushed at ["requests"], its response growing by
Push at ["requests",i,"response"] (without `i` when parts are appended, with `i` when a part changed:
streamed markdown, a tool invocation that completed), then Sets of result and modelState (and on the
newest builds of promptTokens/completionTokens/copilotCredits or modelTotals). A retried or edited
request is a Push at ["requests"] with `i` cutting the requests after it; queued requests come and go
at ["pendingRequests"] (a Push with `i` and no `v` empties it); an undone edit deletes (kind 3) the
request's editedFileEvents. Once a file holds more than 1024 entries the next write rewrites it from a
kind-0 line, as VS Code compacts it; a few logs also carry a kind-0 line in their middle restating
the state, a torn line (not JSON) or a last line cut short. Keys are in the order VS Code's schema
writes them (key, primitives, arrays, objects), so a compacted line reads like the real ones.

Session mix (drawn per session): ~8% empty (opened, never asked), 4% `.json` version 2, 6% `.json`
version 3, 5% migrated (a version-3 `.json` left beside the `.jsonl` that continued it: the `.jsonl` is
the live copy, the session counts once), and `.jsonl` logs of three builds by their token fields:
20% legacy (result.metadata promptTokens/outputTokens, the last call only, with toolCallRounds), 30%
modelTotals (whole-turn totals per model, on the request by a Set line or in result.metadata), 27%
newest (request-level promptTokens/completionTokens/copilotCredits written by Set lines). About 6% of
sessions are empty-window chats and 5% are in Code - Insiders. Tool outputs are mostly small, some tens
or hundreds of KB, a few several MB; result.metadata.toolCallResults repeats them, as Copilot Chat does.

vscode-expected.json holds what VS Code's usage rules (request_usage below: modelTotals, else the
request's own counts, else result.metadata's) give on the final states: usage per model and per UTC day and model (counted and partial, in the columns of
`copilot-lens usage --json`: requests, input = fresh input, cache_read, cache_write, output, reasoning,
total), the sessions (id, file, project, requests, a digest of the replayed state) and the bad lines a
reader must report. `--check` replays every file with the small replayer below and compares.
Ambiguities are kept out: a request with several modelTotals entries has no thinking tokens.
"""
from __future__ import annotations

import hashlib
import json
import math
import random
import sqlite3
import shutil
import tempfile
import time
from pathlib import Path

USER_DIRS = (".config/Code/User", ".config/Code - Insiders/User")
COMPACT_AFTER = 1024  # ChatSessionOperationLog: super(storageSchema, 1024)
CHAT_EXT_VERSION = "0.62.0"
EXPECTED_NAME = "vscode-expected.json"

VS_MODELS = ["gpt-4.1", "gpt-5-mini", "gpt-5.4", "claude-sonnet-4.5", "claude-opus-4.6", "gemini-3.1-pro"]
VS_WEIGHTS = [15, 12, 20, 33, 12, 8]
MULTIPLIER = {"gpt-4.1": "0x", "gpt-5-mini": "0x", "gpt-5.4": "1x", "claude-sonnet-4.5": "1x", "claude-opus-4.6": "3x",
              "gemini-3.1-pro": "1x"}
THINKS = {"gpt-5-mini", "gpt-5.4", "claude-opus-4.6", "gemini-3.1-pro"}
RATES = {"gpt-4.1": (2.0, 0.5, 8.0), "gpt-5-mini": (0.25, 0.025, 2.0), "gpt-5.4": (1.25, 0.125, 10.0),
         "claude-sonnet-4.5": (3.0, 0.3, 15.0), "claude-opus-4.6": (5.0, 0.5, 25.0), "gemini-3.1-pro": (2.0, 0.2, 12.0)}

# Session kinds: (name, weight). "log_*" are .jsonl of a build, named by its token fields.
KINDS = [("empty", 8), ("json_v2", 4), ("json_v3", 6), ("migrated", 5), ("log_legacy", 20), ("log_totals", 30),
         ("log_newest", 27)]

# The chat schema's write order (chatSessionOperationLog.ts): keys, then primitives, arrays, objects,
# each in declaration order. Fields of newer builds (tokens) follow.
REQUEST_ORDER = ["requestId", "timestamp", "confirmation", "shouldBeRemovedOnSend", "agent", "modelId", "modeInfo",
                 "isHidden", "isCanceled", "responseId", "result", "responseMarkdownInfo", "followups", "modelState",
                 "vote", "voteDownReason", "slashCommand", "usedContext", "contentReferences", "codeCitations",
                 "timeSpentWaiting", "editedFileEvents", "response", "message", "variableData"]
STATE_ORDER = ["version", "creationDate", "customTitle", "initialLocation", "responderUsername", "sessionId",
               "hasPendingEdits", "repoData", "requests", "pendingRequests", "inputState"]
INPUT_ORDER = ["attachments", "mode", "selectedModel", "inputText", "selections", "contrib"]
PENDING_ORDER = ["id", "kind", "sendOptions", "request"]

TOOLS = [("copilot_readFile", 28), ("copilot_findTextInFiles", 12), ("copilot_findFiles", 5), ("run_in_terminal", 22),
         ("copilot_replaceString", 12), ("copilot_multiReplaceString", 3), ("copilot_createFile", 3),
         ("copilot_fetchWebPage", 3), ("copilot_getErrors", 5), ("manage_todo_list", 3), ("mcp_github_list_issues", 2),
         ("mcp_github_get_file_contents", 2)]
TOOL_NAMES = [t for t, _ in TOOLS]
TOOL_WEIGHTS = [w for _, w in TOOLS]
EDIT_TOOLS = {"copilot_replaceString", "copilot_multiReplaceString", "copilot_createFile"}
FAILURES = {"copilot_readFile": "File not found", "copilot_findTextInFiles": "Invalid regular expression",
            "run_in_terminal": "Command timed out after 60 seconds", "copilot_fetchWebPage": "Failed to fetch: 404 Not Found",
            "mcp_github_list_issues": "MCP error -32603: rate limit exceeded", "copilot_getErrors": "No such file"}
ERRORS = ["Sorry, your request failed. Please try again. Request id: {rid}\n\nReason: Server error: 503",
          "Sorry, you have been rate-limited. Please wait a moment before trying again.",
          "Sorry, the response was filtered by the Responsible AI Service. Please rephrase your prompt and try again."]
THOUGHTS = ["Let me look at {f} first to see how {g} is used.", "The failing case is probably the empty {w}; check {g}.",
            "I should run the narrower test before changing {f}.", "{g} is called from two places; both need the new {w}.",
            "The user wants {w} handled in {f}; an edit plus a test should do it."]
TODOS = ["Read the failing test", "Find every caller of {g}", "Fix {g} in {f}", "Add a test for the empty {w}",
         "Run the test suite", "Update the README"]
AGENT_IDS = {"agent": ("github.copilot.editsAgent", "agent", "Edit files in your workspace in agent mode"),
             "ask": ("github.copilot.default", "", "Ask Copilot"),
             "edit": ("github.copilot.editingSession", "edit", "Edit files in your workspace")}


def strip_model(model) -> str | None:
    if not isinstance(model, str):
        return None
    return model[len("copilot/"):] if model.startswith("copilot/") else model


def dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def digest(state) -> str:
    return hashlib.sha1(json.dumps(state, separators=(",", ":"), ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def ordered(obj: dict, order: list[str]) -> dict:
    out = {k: obj[k] for k in order if k in obj}
    for k, v in obj.items():
        if k not in out:
            out[k] = v
    return out


def ordered_request(r: dict) -> dict:
    return ordered(r, REQUEST_ORDER)


def ordered_state(s: dict) -> dict:
    out = ordered(s, STATE_ORDER)
    out["requests"] = [ordered_request(r) for r in s["requests"]]
    if "pendingRequests" in out:
        out["pendingRequests"] = [ordered({**p, "request": ordered_request(p["request"])}, PENDING_ORDER)
                                  for p in s["pendingRequests"]]
    if "inputState" in out:
        out["inputState"] = ordered(s["inputState"], INPUT_ORDER)
    return out


def uri(path: str) -> dict:
    return {"$mid": 1, "fsPath": path, "external": "file://" + path.replace(" ", "%20"), "path": path, "scheme": "file"}


def md(value: str, **extra) -> dict:
    return {"value": value, "supportThemeIcons": False, "supportHtml": False, **extra}


class RawPool:
    """The CLI generator's text pools unescaped: slices of real text, cut on line boundaries."""

    def __init__(self, pool):
        self.text = json.loads('"' + pool.text + '"')
        self.size = len(self.text)
        starts, at = [0], self.text.find("\n")
        while at != -1 and at + 1 < self.size:
            starts.append(at + 1)
            at = self.text.find("\n", at + 1)
        self.starts = starts

    def take(self, rng: random.Random, n: int) -> str:
        parts = []
        while n > 0:  # a slice longer than the pool is several slices
            a = self.starts[int(rng.random() * len(self.starts))]
            piece = self.text[a:a + n]
            cut = piece.rfind("\n")
            if cut > 0 and len(piece) == n:
                piece = piece[:cut + 1]
            parts.append(piece)
            n -= max(1, len(piece))
        return "".join(parts)


def output_size(rng: random.Random) -> int:
    u = rng.random()
    if u < 0.935:
        return int(min(14_000, max(40, math.exp(rng.gauss(6.8, 1.0)))))
    if u < 0.999:
        return int(min(400_000, max(20_000, math.exp(rng.gauss(10.8, 0.7)))))
    return int(rng.uniform(1.0e6, 4.5e6))


# ---------------------------------------------------------------------------------------------
# The mutation log.

class MutationLog:
    """One `.jsonl` as ObjectMutationLog writes it; the caller applies each change to `state` and says
    what it was. write() appends one diff's entries, or rewrites the file from a kind-0 line once more
    than COMPACT_AFTER entries were written (ObjectMutationLog.write)."""

    def __init__(self, state: dict):
        self.state = state
        self.lines: list[str] = []
        self.entries = 0
        self.compactions = 0
        self.batch: list[str] = []
        self.restart()

    def restart(self) -> None:
        self.lines = [dumps({"kind": 0, "v": ordered_state(self.state)})]
        self.entries = 1

    @staticmethod
    def _walk(state, path):
        cur = state
        for key in path[:-1]:
            cur = cur[key]
        return cur

    def set(self, path: list, value) -> None:
        self._walk(self.state, path)[path[-1]] = value
        self.batch.append(dumps({"kind": 1, "k": path, "v": value}))

    def push(self, path: list, items: list | None, i: int | None = None) -> None:
        parent = self._walk(self.state, path)
        arr = parent.get(path[-1]) if isinstance(parent, dict) else parent[path[-1]]
        if arr is None:
            arr = parent[path[-1]] = []
        if i is not None:
            del arr[i:]
        if items:
            arr.extend(items)
        entry = {"kind": 2, "k": path}
        if items:
            entry["v"] = items
        if i is not None:
            entry["i"] = i
        self.batch.append(dumps(entry))

    def delete(self, path: list) -> None:
        parent = self._walk(self.state, path)
        del parent[path[-1]]
        self.batch.append(dumps({"kind": 3, "k": path}))

    def write(self) -> None:
        if not self.batch:
            return
        if self.entries > COMPACT_AFTER:
            self.restart()
            self.compactions += 1
        else:
            self.lines.extend(self.batch)
            self.entries += len(self.batch)
        self.batch = []

    def restate(self) -> None:
        """A kind-0 line in the middle of the log, restating the whole state."""
        self.write()
        self.lines.append(dumps({"kind": 0, "v": ordered_state(self.state)}))
        self.entries += 1

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Usage by VS Code's counting rules, on a replayed state.

def request_usage(req: dict):
    """[(kind, model, requests, input, cache_read, output, reasoning)] of one request; kind is
    "counted" or "partial"; [] when it has no figure."""
    result = req.get("result") if isinstance(req.get("result"), dict) else {}
    meta = result.get("metadata") if isinstance(result.get("metadata"), dict) else {}
    rounds = meta.get("toolCallRounds") if isinstance(meta.get("toolCallRounds"), list) else None
    reasoning = 0
    for r in rounds or []:
        t = r.get("thinking") if isinstance(r, dict) else None
        if isinstance(t, dict) and isinstance(t.get("tokens"), int):
            reasoning += t["tokens"]
    model = strip_model(meta.get("resolvedModel")) or strip_model(req.get("modelId"))
    totals = req.get("modelTotals")
    if not totals:
        totals = meta.get("modelTotals")
    if isinstance(totals, list) and totals:
        return [("counted", strip_model(e.get("model")), 1, e.get("inputTokens", 0), e.get("cachedTokens", 0),
                 e.get("outputTokens", 0), reasoning if len(totals) == 1 else 0) for e in totals]
    if "promptTokens" in req or "completionTokens" in req:
        return [("counted", model, 1, req.get("promptTokens", 0), 0, req.get("completionTokens", 0), reasoning)]
    if "promptTokens" in meta or "outputTokens" in meta:
        kind = "counted" if rounds is not None and len(rounds) == 1 else "partial"
        return [(kind, model, 1, meta.get("promptTokens", 0), 0, meta.get("outputTokens", 0), reasoning)]
    return []


class UsageBook:
    COLUMNS = ("requests", "input", "cache_read", "cache_write", "output", "reasoning", "total")

    def __init__(self):
        self.cells: dict[tuple[str, str, str], list[int]] = {}  # (kind, day, model) -> columns
        self.unknown = 0

    def add_state(self, state: dict) -> None:
        for req in state.get("requests", []):
            figures = request_usage(req)
            if not figures:
                self.unknown += 1
                continue
            day = _day(req.get("timestamp", 0))
            for kind, model, n, inp, cached, out, reasoning in figures:
                c = self.cells.setdefault((kind, day, model), [0] * 7)
                fresh = max(0, inp - cached)
                for j, v in enumerate((n, fresh, cached, 0, out, reasoning, fresh + cached + out)):
                    c[j] += v

    def as_json(self) -> dict:
        out = {}
        for kind in ("counted", "partial"):
            by_model: dict[str, list[int]] = {}
            total = [0] * 7
            rows = []
            for (k, day, model), c in sorted(self.cells.items()):
                if k != kind:
                    continue
                rows.append({"day": day, "model": model, **dict(zip(self.COLUMNS, c))})
                m = by_model.setdefault(model, [0] * 7)
                for j in range(7):
                    m[j] += c[j]
                    total[j] += c[j]
            out[kind] = {"totals": dict(zip(self.COLUMNS, total)),
                         "by_model": {m: dict(zip(self.COLUMNS, c)) for m, c in sorted(by_model.items())},
                         "by_day_model": rows}
        out["requests_without_figures"] = self.unknown
        return out


_DAYS: dict[int, str] = {}


def _day(ms: int) -> str:
    d = ms // 86_400_000
    s = _DAYS.get(d)
    if s is None:
        t = time.gmtime(d * 86400)
        s = _DAYS[d] = f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}"
    return s


# ---------------------------------------------------------------------------------------------
# One chat session.

class ChatSession:
    def __init__(self, g, gen: "VSCodeCorpus", rng: random.Random, kind: str, project, sid: str, start: int):
        self.g = g  # the gen-corpus module: its vocabulary
        self.gen = gen
        self.rng = rng
        self.ri, self.ch = g.fast(rng)
        self.rnd = rng.random
        self.uuid = g.make_uuid(rng)
        self.kind = kind
        self.project = project  # (name, lang, weight, _) or None for an empty window
        self.lang = project[1] if project else self.ch(("node", "python", "rust", "go"))
        self.cwd = f"/home/mona/code/{project[0]}" if project else None
        self.sid = sid
        self.t = start
        self.auto = self.rnd() < 0.10
        self.model = self.pick_model()
        self.ctx = self.ri(9000, 16000)
        self.prev_input = 0
        self.log: MutationLog | None = None
        self.bad_lines = 0
        self.tool_calls = 0
        self.restated = False
        self.restate_after = None
        self.snapshot_text: str | None = None  # the .json of a migrated session

    # -- vocabulary ---------------------------------------------------------------------
    def pick_model(self) -> str:
        return self.rng.choices(VS_MODELS, VS_WEIGHTS)[0]

    def fill(self, text: str) -> str:
        g = self.g
        return text.format(f=self.ch(g.FILES[self.lang]), g=self.ch(g.IDENTS), w=self.ch(g.WORDS),
                           c=self.ch(g.COMMANDS[self.lang]), b=self.ch(g.FILES[self.lang]).rsplit("/", 1)[-1])

    def prompt_text(self, first: bool) -> tuple[str, str]:
        g = self.g
        while True:
            p, t = self.ch(g.PROMPTS)
            if t is not None or not first:
                break
        f = self.ch(g.FILES[self.lang])
        fill = {"f": f, "b": f.rsplit("/", 1)[-1], "g": self.ch(g.IDENTS), "c": self.ch(g.COMMANDS[self.lang]),
                "w": self.ch(g.WORDS)}
        return p.format(**fill), (t or "Follow-up").format(**fill)

    def reply(self, lo: int, hi: int) -> str:
        g = self.g
        target = self.ri(lo, hi)
        parts, n = [], 0
        while n < target:
            k = self.rnd()
            if k < 0.15:
                s = "\n\n" + "\n".join(f"- `{self.ch(g.FILES[self.lang])}`: {self.ch(g.VERBS)} so that {self.ch(g.CLAUSES)}."
                                       for _ in range(self.ri(2, 4)))
            elif k < 0.22:
                s = f"\n\n```{ {'node': 'ts', 'python': 'python', 'rust': 'rust', 'go': 'go'}[self.lang]}\n" \
                    f"{self.gen.raw['code'].take(self.rng, self.ri(80, 900))}```\n\n"
            else:
                s = f"{self.ch(g.SUBJECTS).capitalize()} is {self.ch(g.VERBS)}: {self.ch(g.CLAUSES)}. "
            parts.append(s)
            n += len(s)
        return "".join(parts).strip()

    def path(self) -> str:
        base = self.cwd or f"/home/mona/scratch/{self.ch(self.g.MODS)}"
        return f"{base}/{self.ch(self.g.FILES[self.lang])}"

    def tick(self, lo: int, hi: int) -> int:
        self.t += lo + int(self.rnd() * (hi - lo + 1))
        return self.t

    # -- state --------------------------------------------------------------------------
    def initial_state(self, version: int = 3) -> dict:
        model_id = "copilot/auto" if self.auto else f"copilot/{self.model}"
        st = {"version": version, "creationDate": self.t, "initialLocation": "panel",
              "responderUsername": "GitHub Copilot", "sessionId": self.sid, "hasPendingEdits": False,
              "requests": [], "pendingRequests": [],
              "inputState": {"attachments": [], "mode": {"id": "agent", "kind": "agent"},
                             "selectedModel": {"identifier": model_id,
                                               "metadata": {"extension": {"value": "GitHub.copilot-chat", "_lower": "github.copilot-chat"},
                                                            "id": model_id.split("/", 1)[1], "vendor": "copilot",
                                                            "name": "Auto" if self.auto else self.g.DISPLAY[self.model],
                                                            "family": model_id.split("/", 1)[1], "isDefault": False}},
                             "inputText": "",
                             "selections": [{"startLineNumber": 1, "startColumn": 1, "endLineNumber": 1, "endColumn": 1,
                                             "selectionStartLineNumber": 1, "selectionStartColumn": 1,
                                             "positionLineNumber": 1, "positionColumn": 1}],
                             "contrib": {}}}
        return st

    def new_request(self, text: str, mode: str) -> dict:
        agent_id, agent_name, desc = AGENT_IDS[mode]
        agent = {"extensionId": {"value": "GitHub.copilot-chat", "_lower": "github.copilot-chat"},
                 "extensionVersion": CHAT_EXT_VERSION, "publisherDisplayName": "GitHub", "extensionPublisherId": "GitHub",
                 "extensionDisplayName": "GitHub Copilot Chat", "id": agent_id, "description": desc,
                 "when": "config.chat.agent.enabled" if mode == "agent" else None,
                 "metadata": {"themeIcon": {"id": "tools" if mode == "agent" else "copilot"}, "hasFollowups": mode == "ask",
                              "supportIssueReporting": False},
                 "name": agent_name, "fullName": "GitHub Copilot", "isDefault": True, "locations": ["panel"],
                 "modes": [mode], "slashCommands": [], "disambiguation": []}
        if agent["when"] is None:
            del agent["when"]
        variables = []
        if self.rnd() < 0.35:
            p = self.path()
            variables.append({"kind": "file", "id": "file://" + p, "name": p.rsplit("/", 1)[-1], "value": uri(p)})
        if mode == "agent" and self.rnd() < 0.2:
            variables.append({"kind": "tool", "id": "copilot_codebase", "name": "codebase", "fullName": "Codebase",
                              "value": None, "icon": {"id": "search"}})
        end = len(text)
        req = {"requestId": f"request_{self.uuid()}", "timestamp": self.t, "agent": agent,
               "modelId": "copilot/auto" if self.auto else f"copilot/{self.model}",
               "modeInfo": {"kind": mode, "isBuiltin": True, "modeId": mode, "modeName": mode},
               "responseId": f"response_{self.uuid()}", "responseMarkdownInfo": [],
               "modelState": {"value": 0}, "contentReferences": [], "codeCitations": [],
               "timeSpentWaiting": self.t, "response": [],
               "message": {"text": text, "parts": [{"range": {"start": 0, "endExclusive": end},
                                                    "editorRange": {"startLineNumber": 1, "startColumn": 1,
                                                                    "endLineNumber": 1, "endColumn": end + 1},
                                                    "text": text, "kind": "text"}]},
               "variableData": {"variables": variables}}
        if self.rnd() < 0.03 and mode == "ask":
            req["slashCommand"] = {"name": self.ch(("explain", "fix", "tests")), "description": "Slash command"}
        return req

    # -- one request's work, as the model did it ----------------------------------------
    def plan(self, mode: str, model: str, era: str) -> dict:
        """The rounds of one request (tools, outputs, tokens), before anything is written."""
        rng = self.rng
        if mode == "ask":
            nrounds = 1
        else:
            nrounds = rng.choices((1, 2, 3, 4, 5, 6, 8, 10, 14), (10, 16, 18, 16, 12, 10, 8, 6, 4))[0]
        sub_at = self.ri(0, nrounds - 2) if mode == "agent" and nrounds > 2 and self.rnd() < 0.04 else None
        rounds = []
        for r in range(nrounds):
            last = r == nrounds - 1
            tools = []
            if not last:
                if r == sub_at:
                    tools = ["runSubagent"]
                else:
                    n = rng.choices((1, 2, 3), (65, 25, 10))[0]
                    tools = rng.choices(TOOL_NAMES, TOOL_WEIGHTS, k=n)
                    if mode == "edit":
                        tools = [t if t != "run_in_terminal" else "copilot_readFile" for t in tools]
            think = model in THINKS and self.rnd() < 0.6
            reply = self.reply(120, 2400) if last else (self.reply(40, 220) if self.rnd() < 0.5 else "")
            out = max(30, len(reply) // 4 + self.ri(20, 260)) if last else self.ri(40, 420)
            out += 40 * len(tools)
            rounds.append({"tools": [self.tool_call(t, model) for t in tools], "reply": reply, "out": out,
                           "think": self.fill(self.ch(THOUGHTS)) if think else None})
        # tokens, call by call
        for rd in rounds:
            inp = self.ctx + self.ri(0, 800)
            if self.prev_input and self.rnd() < 0.93:
                cached = int(min(self.prev_input, inp) * rng.uniform(0.80, 0.97))
            else:
                cached = self.ch((0, 0, 1536, 4096))
            cached = min(cached, inp)
            rd["in"], rd["cached"] = inp, cached
            rd["thinking_tokens"] = int(rd["out"] * rng.uniform(0.2, 0.7)) if rd["think"] else 0
            self.prev_input = inp
            self.ctx = inp + rd["out"] + sum(min(len(c["output"] or ""), 320_000) // 4 for c in rd["tools"])
            for c in rd["tools"]:
                sub = c.get("sub")
                if sub:  # the sub-agent's own calls, on its own model
                    for _ in range(sub["calls"]):
                        si = self.ri(7000, 30000)
                        sub["in"] += si
                        sub["cached"] += int(si * rng.uniform(0.3, 0.8)) if sub["in"] > si else 0
                        sub["out"] += self.ri(60, 600)
        if self.ctx > 120_000:  # the conversation was summarised
            self.ctx = self.ri(18_000, 30_000)
            self.prev_input = 0
        return {"rounds": rounds, "mode": mode, "model": model, "era": era}

    def tool_call(self, tool: str, model: str) -> dict:
        g, rng = self.g, self.rng
        raw = self.gen.raw
        self.tool_calls += 1
        cid = self.uuid()
        model_call = (f"toolu_vrtx_{rng.getrandbits(96):024x}" if model.startswith("claude")
                      else f"call_{rng.getrandbits(96):024x}")
        fail = tool in FAILURES and self.rnd() < 0.05
        c = {"tool": tool, "id": cid, "call_id": model_call, "fail": fail, "output": None, "source": "extension",
             "details": True, "args": {}, "specific": None, "edit": None, "sub": None}
        p = self.path()
        size = output_size(rng)
        if tool == "copilot_readFile":
            n = self.ri(40, 400)
            c["args"] = {"filePath": p, "startLine": 1, "endLine": n}
            c["inv"], c["past"] = f"Reading [](file://{p}#1-1), lines 1 to {n}", f"Read [](file://{p}#1-1), lines 1 to {n}"
            c["output"] = raw["code"].take(rng, size)
        elif tool == "copilot_findTextInFiles":
            w = self.ch(g.IDENTS)
            c["args"] = {"query": w, "isRegexp": False, "includePattern": "**/*"}
            c["inv"], c["past"] = f"Searching text for `{w}`", f"Searched text for `{w}`, {self.ri(1, 60)} results"
            c["output"] = raw["grep"].take(rng, min(size, 60_000))
        elif tool == "copilot_findFiles":
            ext = {"node": "ts", "python": "py", "rust": "rs", "go": "go"}[self.lang]
            c["args"] = {"query": f"**/*.{ext}"}
            found = [uri(self.path()) for _ in range(self.ri(1, 12))]
            c["inv"], c["past"] = f"Searching for files matching `**/*.{ext}`", f"Searched for files matching `**/*.{ext}`, {len(found)} matches"
            c["details"] = found  # an array of URIs, not {input, output}
        elif tool == "run_in_terminal":
            cmd = self.ch(g.COMMANDS[self.lang])
            c["source"] = "internal"
            c["args"] = {"command": cmd, "explanation": f"Run {cmd.split()[0]}", "isBackground": False}
            c["inv"], c["past"] = f"Running `{cmd}`", f"Ran `{cmd}`"
            code = self.ch((1, 1, 2)) if self.rnd() < 0.12 else 0
            c["specific"] = {"kind": "terminal", "commandLine": {"original": cmd}, "language": "sh",
                             "terminalCommandState": {"exitCode": code, "timestamp": self.t, "duration": self.ri(200, 60000)}}
            c["output"] = raw["log"].take(rng, size) + ("" if not code else f"\nCommand exited with code {code}")
        elif tool in EDIT_TOOLS:
            verb = "Created" if tool == "copilot_createFile" else "Edited"
            if tool == "copilot_createFile":
                c["args"] = {"filePath": p, "content": raw["code"].take(rng, self.ri(200, 4000))}
            elif tool == "copilot_replaceString":
                c["args"] = {"filePath": p, "oldString": f"{self.ch(g.WORDS)} = {self.ch(g.IDENTS)}()",
                             "newString": f"{self.ch(g.WORDS)} = {self.ch(g.IDENTS)}({self.ch(g.WORDS)})"}
            else:
                c["args"] = {"explanation": "Apply the fix in both places",
                             "replacements": [{"filePath": p, "oldString": self.ch(g.IDENTS), "newString": self.ch(g.IDENTS)}
                                              for _ in range(self.ri(2, 4))]}
            c["inv"], c["past"] = f"Using \"{'Create File' if verb == 'Created' else 'Replace String in File'}\"", f"{verb} [](file://{p})"
            c["details"] = None
            a = self.ri(1, 300)
            c["edit"] = {"path": p, "text": raw["code"].take(rng, self.ri(80, 6000)), "range": (a, a + self.ri(0, 30))}
        elif tool == "copilot_fetchWebPage":
            u = self.ch(g.URLS)
            c["args"] = {"urls": [u], "query": self.ch(g.WORDS)}
            c["inv"], c["past"] = f"Fetching {u}", f"Fetched {u}"
            c["output"] = raw["web"].take(rng, max(size, 3000))
        elif tool == "copilot_getErrors":
            c["args"] = {"filePaths": [p]}
            c["inv"], c["past"] = f"Checking [](file://{p})", f"Checked [](file://{p}), no problems found"
            c["output"] = "No errors found." if self.rnd() < 0.7 else raw["log"].take(rng, min(size, 3000))
        elif tool == "manage_todo_list":
            items = [{"id": i + 1, "title": self.fill(t), "description": "", "status": self.ch(("completed", "in-progress", "not-started"))}
                     for i, t in enumerate(self.rng.sample(TODOS, self.ri(2, 5)))]
            c["args"] = {"operation": "write", "todoList": items}
            c["inv"], c["past"] = "Updating todo list", None
            c["specific"] = {"kind": "todoList", "todoList": items}
            c["details"] = None
        elif tool.startswith("mcp_github"):
            c["source"] = "mcp"
            if tool.endswith("list_issues"):
                c["args"] = {"owner": "octo-org", "repo": self.project[0] if self.project else "octo-world", "state": "open"}
                body = dumps([{"number": self.ri(1, 900), "title": self.fill("{g} fails on empty {w}"), "state": "open",
                               "body": raw["web"].take(rng, self.ri(100, 1500))} for _ in range(self.ri(1, 12))])
            else:
                c["args"] = {"owner": "octo-org", "repo": "octo-world", "path": self.ch(g.FILES[self.lang])}
                body = raw["code"].take(rng, size)
            name = tool[len("mcp_github_"):]
            c["inv"], c["past"] = f"Running `{name}`", f"Ran `{name}`"
            c["output"] = body
        elif tool == "runSubagent":
            sub_model = self.ch(("gpt-5-mini", "claude-sonnet-4.5", "gpt-5-mini"))
            task = f"Find every caller of {self.ch(g.IDENTS)} and summarise how each one handles errors."
            c["args"] = {"description": "Explore the code", "prompt": task}
            c["inv"], c["past"] = "Explore the code", None
            answer = self.reply(200, 1500)
            c["specific"] = {"kind": "subagent", "description": "Explore the code", "agentName": "Explore",
                             "prompt": task, "result": answer}
            c["details"] = None
            c["source"] = "internal"
            c["sub"] = {"model": sub_model, "calls": self.ri(2, 6), "in": 0, "cached": 0, "out": 0,
                        "children": [self.tool_call(self.ch(("copilot_readFile", "copilot_findTextInFiles")), sub_model)
                                     for _ in range(self.ri(1, 4))]}
        if fail:
            c["output"] = FAILURES[tool]
        return c

    def tool_part(self, c: dict, complete: bool, parent: str | None = None) -> dict:
        source = {"internal": {"type": "internal", "label": "Built-In"},
                  "extension": {"type": "extension", "label": "GitHub Copilot Chat",
                                "extensionId": {"value": "GitHub.copilot-chat", "_lower": "github.copilot-chat"}},
                  "mcp": {"type": "mcp", "label": "GitHub", "serverLabel": "github",
                          "collectionId": "mcp.config.usrlocal", "definitionId": "mcp.config.usrlocal.github"}}[c["source"]]
        part = {"kind": "toolInvocationSerialized", "invocationMessage": md(c["inv"], uris={}) if "](file" in c["inv"] else c["inv"]}
        if complete and c["past"]:
            part["pastTenseMessage"] = md(c["past"], uris={}) if "](file" in c["past"] else c["past"]
        part["isConfirmed"] = {"type": 1}
        part["isComplete"] = complete
        part["source"] = source
        if complete:
            if c["details"] is True:
                part["resultDetails"] = {"input": json.dumps(c["args"], indent=2, ensure_ascii=False),
                                         "output": [{"type": "embed", "isText": True, "value": c["output"]}],
                                         "isError": bool(c["fail"])}
            elif c["details"]:
                part["resultDetails"] = c["details"]
        if c["specific"]:
            spec = c["specific"]
            if spec["kind"] == "subagent" and not complete:
                spec = {k: v for k, v in spec.items() if k != "result"}
            part["toolSpecificData"] = spec
        part["toolCallId"] = c["id"]
        part["toolId"] = c["tool"]
        if parent:
            part["subAgentInvocationId"] = parent
        return part

    def result(self, plan: dict, state: int, elapsed: int) -> dict | None:
        """The request's result as Copilot Chat returns it; token fields by the session's build."""
        rounds, model, era = plan["rounds"], plan["model"], plan["era"]
        if state == 2 and self.rnd() < 0.5:
            return None
        meta: dict = {"codeBlocks": [],
                      "renderedUserMessage": [{"type": 1, "text": f"<context>\nThe current date is {self.g.iso(self.t)[:10]}.\n"
                                                                   f"</context>\n<userRequest>\n{plan['text']}\n</userRequest>"}]}
        trounds = []
        results = {}
        for rd in rounds:
            tr = {"response": rd["reply"], "toolCalls": [{"name": c["tool"], "arguments": dumps(c["args"]), "id": c["call_id"]}
                                                         for c in rd["tools"]],
                  "toolInputRetry": 0, "id": self.uuid()}
            if rd["think"] and not plan.get("multi"):
                tr["thinking"] = {"id": f"thinking_{self.rng.getrandbits(64):016x}", "text": rd["think"], "tokens": rd["thinking_tokens"]}
            trounds.append(tr)
            if era != "json_v2":
                for c in rd["tools"]:
                    if c["output"] is not None:
                        results[c["call_id"]] = {"$mid": 20, "content": [{"$mid": 21, "value": c["output"]}]}
        last = rounds[-1]
        if plan["tokens"] in ("legacy", "totals", "newest"):
            meta["promptTokens"] = last["in"]
            meta["outputTokens"] = last["out"]
        if plan["mode"] != "ask" or era != "json_v2":
            meta["toolCallRounds"] = trounds
        if results:
            meta["toolCallResults"] = results
        meta["modelMessageId"] = self.uuid()
        meta["responseId"] = self.uuid()
        meta["sessionId"] = self.uuid()
        meta["agentId"] = AGENT_IDS[plan["mode"]][0]
        if self.auto:
            meta["resolvedModel"] = model
        if plan["tokens"] == "totals" and plan["totals_in"] == "metadata":
            meta["modelTotals"] = plan["totals"]
        res: dict = {"timings": {"firstProgress": self.ri(400, 4000), "totalElapsed": elapsed}, "metadata": meta}
        if state == 3:
            res["errorDetails"] = {"message": self.ch(ERRORS).format(rid=self.uuid()), "responseIsIncomplete": True}
        label = f"Auto ({self.g.DISPLAY[model]})" if self.auto else self.g.DISPLAY[model]
        res["details"] = f"{label} • {MULTIPLIER[model]}"
        return res

    def token_plan(self, plan: dict, era: str) -> None:
        """Which token fields the request gets (by build), and their figures."""
        rounds = plan["rounds"]
        model = plan["model"]
        plan["tokens"] = {"log_legacy": "legacy", "log_totals": "totals", "log_newest": "newest",
                          "json_v3": "legacy", "json_v2": "legacy"}[era]
        if era in ("json_v2", "json_v3") and self.rnd() < 0.3:
            plan["tokens"] = "none"
        entries = {model: [0, 0, 0]}
        for rd in rounds:
            e = entries[model]
            e[0] += rd["in"]
            e[1] += rd["out"]
            e[2] += rd["cached"]
            for c in rd["tools"]:
                if c["sub"]:
                    s = c["sub"]
                    e2 = entries.setdefault(s["model"], [0, 0, 0])
                    e2[0] += s["in"]
                    e2[1] += s["out"]
                    e2[2] += s["cached"]
        plan["multi"] = len(entries) > 1
        prefixed = self.rnd() < 0.15
        plan["totals"] = [{"model": ("copilot/" if prefixed else "") + m, "inputTokens": e[0], "outputTokens": e[1],
                           "cachedTokens": e[2]} for m, e in entries.items()]
        plan["totals_in"] = "request" if self.rnd() < 0.5 else "metadata"
        plan["sum_in"] = sum(e[0] for e in entries.values())
        plan["sum_out"] = sum(e[1] for e in entries.values())
        credits = 0.0
        for m, e in entries.items():
            r_in, r_cr, r_out = RATES[m]
            credits += ((e[0] - e[2]) * r_in + e[2] * r_cr + e[1] * r_out) / 1e6 / 0.01
        plan["credits"] = round(credits * (0.9 if self.auto else 1.0), 4)

    # -- writing one request into the log -----------------------------------------------
    def logged_request(self, era: str, first: bool) -> None:
        log = self.log
        st = log.state
        text, title = self.prompt_text(first)
        mode = self.rng.choices(("agent", "ask", "edit"), (75, 20, 5))[0]
        if self.auto:
            model = self.pick_model()
        else:
            if not first and self.rnd() < 0.04:  # the picker changed
                self.model = self.pick_model()
                log.set(["inputState", "selectedModel"], {"identifier": f"copilot/{self.model}",
                                                          "metadata": {"id": self.model, "vendor": "copilot",
                                                                       "name": self.g.DISPLAY[self.model], "family": self.model}})
                log.write()
            model = self.model
        if self.rnd() < 0.25:  # typing, saved before it was sent
            log.set(["inputState", "inputText"], text[:self.ri(1, len(text))])
            log.write()
        self.t += self.ri(800, 20000)
        req = self.new_request(text, mode)
        reqs = st["requests"]
        retry_at = None
        if reqs and self.rnd() < 0.05:  # retried or edited: the requests from there on are replaced
            retry_at = len(reqs) - 1 if self.rnd() < 0.8 else self.ri(0, len(reqs) - 1)
        queued = era == "log_newest" and bool(reqs) and self.rnd() < 0.05
        if queued:  # sent while the previous one ran: queued first, then taken off the queue
            log.push(["pendingRequests"], [{"id": req["requestId"], "kind": "queued", "sendOptions": {"mode": mode},
                                            "request": json.loads(dumps(req))}])
            log.write()
        log.push(["requests"], [req], i=retry_at)
        if queued:  # the diff's order: requests, then pendingRequests, then inputState
            log.push(["pendingRequests"], None, i=0)
        log.set(["inputState", "inputText"], "")
        if req["variableData"]["variables"]:
            log.set(["inputState", "attachments"], [])
        log.write()
        idx = len(reqs) - 1
        at = ["requests", idx]
        plan = self.plan(mode, model, era)
        plan["text"] = text
        self.token_plan(plan, era)
        outcome = 1
        u = self.rnd()
        if u < 0.03:
            outcome = 2  # cancelled
        elif u < 0.05:
            outcome = 3  # failed
        resp = req["response"]
        stop_round = self.ri(0, len(plan["rounds"]) - 1) if outcome != 1 else None
        for r, rd in enumerate(plan["rounds"]):
            self.tick(300, 4000)
            if rd["think"]:
                value = rd["think"] if era != "log_legacy" or self.rnd() < 0.5 else [rd["think"][:20], rd["think"][20:]]
                log.push(at + ["response"], [{"kind": "thinking", "value": value, "id": f"thinking_{self.rng.getrandbits(64):016x}"}])
            if rd["reply"]:
                self.stream_markdown(at, resp, rd["reply"], final=r == len(plan["rounds"]) - 1)
            if r == stop_round:
                break
            for c in rd["tools"]:
                self.tick(50, 400)
                if self.rnd() < 0.7:  # saved while it ran
                    log.push(at + ["response"], [self.tool_part(c, False)])
                    log.write()
                    self.tick(200, 30000)
                    log.push(at + ["response"], [self.tool_part(c, True)], i=len(resp) - 1)
                else:
                    self.tick(200, 30000)
                    log.push(at + ["response"], [self.tool_part(c, True)])
                if c["sub"]:
                    for child in c["sub"]["children"]:
                        log.push(at + ["response"], [self.tool_part(child, True, parent=c["id"])])
                if c["edit"]:
                    e = c["edit"]
                    u2 = uri(e["path"])
                    log.push(at + ["response"], [{"kind": "codeblockUri", "uri": u2, "isEdit": True},
                                                 {"kind": "textEditGroup", "uri": u2,
                                                  "edits": [[{"text": e["text"], "range": {"startLineNumber": e["range"][0], "startColumn": 1,
                                                                                          "endLineNumber": e["range"][1], "endColumn": 1}}], []],
                                                  "done": True}])
                    event = {"uri": u2, "eventKind": 1}
                    if "editedFileEvents" not in req:  # undefined -> array: a Set
                        log.set(at + ["editedFileEvents"], [event])
                    else:
                        log.push(at + ["editedFileEvents"], [event])
                log.write()
            if r == 0 and self.rnd() < 0.3:
                refs = [{"kind": "reference", "reference": uri(self.path())} for _ in range(self.ri(1, 3))]
                log.set(at + ["contentReferences"], refs)
                log.write()
        if "editedFileEvents" in req and self.rnd() < 0.04:  # undone before the request ended
            log.delete(at + ["editedFileEvents"])
            log.write()
        self.tick(100, 2000)
        elapsed = self.t - req["timestamp"]
        res = self.result(plan, outcome, elapsed)
        if res is not None:
            log.set(at + ["result"], res)
        if mode == "ask" and outcome == 1:
            log.set(at + ["followups"], [])
        log.set(at + ["modelState"], {"value": outcome, "completedAt": self.t})
        if outcome == 1 or (outcome == 2 and res is not None):
            self.token_lines(at, plan)
        log.write()
        if first and self.rnd() < 0.85:
            log.set(["customTitle"], title)
            log.write()
        if self.restate_after == len(st["requests"]):
            log.restate()
            self.restated = True

    def token_lines(self, at: list, plan: dict) -> None:
        log = self.log
        if plan["tokens"] == "newest":
            log.set(at + ["promptTokens"], plan["sum_in"])
            log.set(at + ["completionTokens"], plan["sum_out"])
            log.set(at + ["copilotCredits"], plan["credits"])
        elif plan["tokens"] == "totals" and plan["totals_in"] == "request":
            log.set(at + ["modelTotals"], plan["totals"])

    def stream_markdown(self, at: list, resp: list, text: str, final: bool) -> None:
        """Markdown streamed in: pushed, then grown by Pushes with `i` (the part changed)."""
        log = self.log
        steps = self.ri(1, 4) if final and len(text) > 200 else 1
        cuts = sorted(self.rng.sample(range(1, len(text)), steps - 1)) if steps > 1 and len(text) > steps else []
        cuts.append(len(text))
        log.push(at + ["response"], [md(text[:cuts[0]])])
        log.write()
        for cut in cuts[1:]:
            self.tick(200, 3000)
            log.push(at + ["response"], [md(text[:cut])], i=len(resp) - 1)
            log.write()

    # -- snapshots (.json) -------------------------------------------------------------
    def snapshot_request(self, era: str, first: bool, version: int) -> dict:
        """One request as a whole (.json forms): the same shape, written at once."""
        text, title = self.prompt_text(first)
        if first:
            self.title = title
        mode = self.rng.choices(("agent", "ask"), (60, 40))[0]
        model = self.pick_model() if self.auto else self.model
        self.t += self.ri(30_000, 900_000)
        req = self.new_request(text, mode)
        plan = self.plan(mode, model, era)
        plan["text"] = text
        self.token_plan(plan, era)
        parts = []
        for rd in plan["rounds"]:
            if rd["think"] and version == 3:
                parts.append({"kind": "thinking", "value": rd["think"], "id": f"thinking_{self.rng.getrandbits(64):016x}"})
            if rd["reply"]:
                if parts and "kind" not in parts[-1]:
                    parts[-1] = md(parts[-1]["value"] + rd["reply"])
                else:
                    parts.append(md(rd["reply"]))
            for c in rd["tools"]:
                parts.append(self.tool_part(c, True))
                if c["edit"]:
                    parts.append({"kind": "textEditGroup", "uri": uri(c["edit"]["path"]),
                                  "edits": [[{"text": c["edit"]["text"], "range": {"startLineNumber": 1, "startColumn": 1,
                                                                                  "endLineNumber": 2, "endColumn": 1}}]], "done": True})
        self.tick(2000, 90_000)
        canceled = self.rnd() < 0.03
        req["response"] = parts
        res = self.result(plan, 2 if canceled else 1, self.t - req["timestamp"])
        if res is not None:
            if plan["tokens"] == "none":
                for k in ("promptTokens", "outputTokens"):
                    res["metadata"].pop(k, None)
            req["result"] = res
        if plan["tokens"] == "totals" and plan["totals_in"] == "request":
            req["modelTotals"] = plan["totals"]
        if version == 2:
            del req["modelState"]
            req["isCanceled"] = canceled
        else:
            req["modelState"] = {"value": 2 if canceled else 1, "completedAt": self.t}
        return req

    def snapshot(self, requests: list[dict], version: int) -> dict:
        return {"version": version, "requesterUsername": "mona",
                "requesterAvatarIconUri": {"$mid": 1, "path": "/u/583231", "scheme": "https",
                                           "authority": "avatars.githubusercontent.com", "query": "v=4"},
                "responderUsername": "GitHub Copilot", "responderAvatarIconUri": {"id": "copilot"},
                "initialLocation": "panel", "requests": requests, "sessionId": self.sid, "creationDate": self.start,
                "isImported": False, "lastMessageDate": self.t,
                **({"customTitle": self.title} if getattr(self, "title", None) else {})}

    # -- the whole session ---------------------------------------------------------------
    def generate(self) -> tuple[str, dict, str | None]:
        """Returns (the live file's text, its replayed state, the text of a .json left beside it)."""
        self.start = self.t
        kind = self.kind
        nreq = min(200, int(math.exp(self.rng.gauss(1.45, 1.1))) + 1)
        if kind in ("json_v2", "json_v3"):
            version = 2 if kind == "json_v2" else 3
            reqs = [self.snapshot_request(kind, i == 0, version) for i in range(min(nreq, 40))]
            state = self.snapshot(reqs, version)
            return dumps(state), state, None
        era = {"empty": "log_newest", "migrated": self.ch(("log_totals", "log_newest"))}.get(kind, kind)
        state = self.initial_state()
        if kind == "migrated":
            # The .json an older build kept; the .jsonl the newer build made from it and went on with.
            old = [self.snapshot_request("json_v3", i == 0, 3) for i in range(self.ri(1, 6))]
            snap = self.snapshot(old, 3)
            self.snapshot_text = dumps(snap)
            state["requests"] = [json.loads(dumps(r)) for r in old]
            if getattr(self, "title", None):
                state["customTitle"] = self.title
            self.t += self.ri(3_600_000, 10 * 86_400_000)
        self.log = MutationLog(state)
        # a few logs restate the whole state in a kind-0 line after some request
        self.restate_after = self.ri(1, nreq) if self.rnd() < 0.03 else None
        if kind == "empty":
            if self.rnd() < 0.3:
                self.log.set(["inputState", "inputText"], self.prompt_text(True)[0][:self.ri(1, 12)])
                self.log.write()
            return self.log.text(), state, None
        for i in range(nreq):
            if i and self.rnd() < 0.04:
                self.t += self.ri(6 * 3_600_000, 2 * 86_400_000)  # came back the next day
            else:
                self.t += int(min(1_800_000, math.exp(self.rng.gauss(10.3, 1.3))))
            self.logged_request(era, first=(i == 0 and kind != "migrated"))
        text = self.log.text()
        u = self.rnd()
        if u < 0.007:  # VS Code stopped in the middle of a write: the last line is cut short
            extra = dumps({"kind": 1, "k": ["inputState", "inputText"], "v": self.prompt_text(False)[0]})
            text += extra[:self.ri(5, len(extra) - 2)]
            self.bad_lines += 1
        elif u < 0.012:  # a torn write in the middle, the log went on after it
            lines = text.split("\n")
            at = self.ri(1, len(lines) - 2)
            lines.insert(at, '{"kind":1,"k":["inputState","inputText"],"v":"half a')
            text = "\n".join(lines)
            self.bad_lines += 1
        return text, state, self.snapshot_text


# ---------------------------------------------------------------------------------------------
# The whole VS Code part of a home.

class VSCodeCorpus:
    def __init__(self, g, out: Path, seed: int, pools: dict):
        self.g = g
        self.out = out
        self.seed = seed
        self.rng = random.Random(f"gen-corpus:{seed}:vscode")
        self.raw = {name: RawPool(pool) for name, pool in pools.items()}
        self.bytes = 0
        self.files = {"jsonl": 0, "json": 0, "json_superseded": 0, "bytes_jsonl": 0, "bytes_json": 0, "bytes_json_superseded": 0,
                      "workspace_json": 0, "bytes_workspace_json": 0}
        self.kinds: dict[str, int] = {}
        self.sessions: list[dict] = []
        self.book = UsageBook()
        self.bad_lines: list[dict] = []
        self.compactions = 0
        self.restated = 0
        self.tool_calls = 0
        self.workspaces: dict[tuple[str, str], list[str]] = {}

    def workspace_dirs(self) -> None:
        """workspaceStorage folders: one or two per project (a folder opened again gets a new one),
        a multi-root workspace, a folder whose name needs percent-encoding; some in Insiders."""
        rng = random.Random(f"gen-corpus:{self.seed}:vscode:workspaces")
        g = self.g
        spaces = []
        for name, lang, weight, _ in g.PROJECTS + [("release notes", "python", 3, False)]:
            folder = f"file:///home/mona/code/{name.replace(' ', '%20')}"
            for _ in range(rng.choice((1, 1, 2))):
                spaces.append((USER_DIRS[0], {"folder": folder}, (name, lang, weight, False), weight))
            if weight >= 16:
                spaces.append((USER_DIRS[1], {"folder": folder}, (name, lang, weight, False), 2))
        spaces.append((USER_DIRS[0], {"workspace": "file:///home/mona/code/team.code-workspace"}, ("team", "node", 5, False), 5))
        self.spaces = []
        for user, body, project, weight in spaces:
            h = hashlib.md5(f"{self.seed}:{user}:{dumps(body)}:{len(self.spaces)}".encode()).hexdigest()
            d = self.out / user / "workspaceStorage" / h
            (d / "chatSessions").mkdir(parents=True, exist_ok=True)
            text = json.dumps(body, indent=2) + "\n" if rng.random() < 0.5 else dumps(body)
            (d / "workspace.json").write_text(text)
            self.files["workspace_json"] += 1
            self.files["bytes_workspace_json"] += len(text)
            project_path = None
            if "folder" in body:
                project_path = "/home/mona/code/" + project[0]
            self.spaces.append({"dir": d, "user": user, "project": project, "weight": weight, "path": project_path, "sessions": []})
        self.space_weights = [s["weight"] for s in self.spaces]

    def run(self, target: int) -> None:
        g, rng = self.g, self.rng
        self.workspace_dirs()
        empty_window = self.out / USER_DIRS[0] / "globalStorage" / "emptyWindowChatSessions"
        empty_window.mkdir(parents=True, exist_ok=True)
        kinds, weights = [k for k, _ in KINDS], [w for _, w in KINDS]
        while self.bytes < target:
            kind = rng.choices(kinds, weights)[0]
            if rng.random() < 0.06:
                space = None
                folder, project, project_path = empty_window, None, None
            else:
                space = rng.choices(self.spaces, self.space_weights)[0]
                folder, project, project_path = space["dir"] / "chatSessions", space["project"], space["path"]
            sid = g.make_uuid(rng)()
            start = g.END_MS - g.WINDOW_MS + rng.randrange(g.WINDOW_MS - 3 * g.DAY_MS)
            s = ChatSession(g, self, random.Random(rng.getrandbits(64)), kind, project, sid, start)
            text, state, leftover = s.generate()
            self.kinds[kind] = self.kinds.get(kind, 0) + 1
            is_json = kind in ("json_v2", "json_v3")
            name = f"{sid}.json" if is_json else f"{sid}.jsonl"
            data = text.encode()
            (folder / name).write_bytes(data)
            self.bytes += len(data)
            key = "json" if is_json else "jsonl"
            self.files[key] += 1
            self.files[f"bytes_{key}"] += len(data)
            if leftover is not None:
                old = leftover.encode()
                (folder / f"{sid}.json").write_bytes(old)
                self.bytes += len(old)
                self.files["json_superseded"] += 1
                self.files["bytes_json_superseded"] += len(old)
            if s.log:
                self.compactions += s.log.compactions
            self.restated += s.restated
            self.tool_calls += s.tool_calls
            rel = str((folder / name).relative_to(self.out))
            if s.bad_lines:
                self.bad_lines.append({"file": rel, "bad_lines": s.bad_lines})
            self.book.add_state(state)
            self.sessions.append({"id": sid, "file": rel, "project": project_path, "requests": len(state["requests"]),
                                  "title": state.get("customTitle"), "state_sha1": digest(state)})
            if space is not None and rng.random() < 0.3 and state["requests"]:
                # chatEditingSessions/<id>/state.json: beside chatSessions, never walked
                ed = space["dir"] / "chatEditingSessions" / sid
                ed.mkdir(parents=True, exist_ok=True)
                (ed / "state.json").write_text(dumps({"version": 2, "sessionId": sid, "linearHistory": [], "recentSnapshot": {"entries": []}}))
            if space is not None:
                space["sessions"].append((sid, state.get("customTitle"), state["requests"][-1]["timestamp"] if state["requests"] else start))
        self.other_files()

    def other_files(self) -> None:
        """What else a User folder holds, which a reader must not walk into or read."""
        rng = random.Random(f"gen-corpus:{self.seed}:vscode:other")
        for user in USER_DIRS:
            u = self.out / user
            if not u.exists():
                continue
            (u / "settings.json").write_text('{\n    "chat.agent.enabled": true,\n    "chat.useLogSessionStorage": true,\n'
                                             '    "editor.fontSize": 14,\n    "github.copilot.chat.codeGeneration.useInstructionFiles": true\n}\n')
            gs = u / "globalStorage" / "github.copilot-chat"
            gs.mkdir(parents=True, exist_ok=True)
            (gs / "commandEmbeddings.json").write_text(dumps({f"cmd{i}": [round(rng.uniform(-1, 1), 6) for _ in range(64)] for i in range(40)}))
            (u / "globalStorage" / "storage.json").write_text(dumps({"telemetry.machineId": f"{rng.getrandbits(256):064x}",
                                                                     "theme": "vs-dark"}))
        for space in self.spaces:
            index = {"version": 1, "entries": {sid: {"sessionId": sid, "title": title or "New Chat", "lastMessageDate": last,
                                                     "isEmpty": False} for sid, title, last in space["sessions"]}}
            write_state_db(space["dir"] / "state.vscdb", {"chat.ChatSessionStore.index": dumps(index),
                                                           "memento/workbench.parts.editor": dumps({"editorpart.state": {}})})

    def expected(self, target: int) -> dict:
        return {
            "generator": "scripts/gen-corpus.py --vscode (scripts/lib/vscode_chat.py)",
            "seed": self.seed,
            "agent": "copilot-vscode",
            "target_bytes": target,
            "rules": "VS Code's counting rules: modelTotals, else request promptTokens/"
                     "completionTokens, else result.metadata promptTokens/outputTokens (counted with exactly one toolCallRound, "
                     "else partial); input = fresh input (inputTokens less cachedTokens), no cache write, reasoning = the "
                     "toolCallRounds' thinking tokens; day = the request's UTC day",
            "chat_session_bytes": self.bytes,
            "bytes_read": self.files["bytes_jsonl"] + self.files["bytes_json"] + self.files["bytes_workspace_json"],
            "files": self.files,
            "session_kinds": dict(sorted(self.kinds.items())),
            "sessions": len(self.sessions),
            "sessions_with_requests": sum(1 for s in self.sessions if s["requests"]),
            "requests": sum(s["requests"] for s in self.sessions),
            "tool_calls_generated": self.tool_calls,
            "compactions": self.compactions,
            "restated_kind0_lines": self.restated,
            "bad_lines": self.bad_lines,
            "usage": self.book.as_json(),
            "per_session": self.sessions,
        }


def write_state_db(path: Path, items: dict) -> None:
    """A workspace's state.vscdb (ItemTable), as VS Code keeps it; the reader never opens it."""
    with tempfile.TemporaryDirectory(prefix="gen-corpus-vscdb-") as tmp:
        db = Path(tmp) / "state.vscdb"
        conn = sqlite3.connect(db)
        conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        conn.executemany("INSERT INTO ItemTable VALUES (?, ?)", sorted(items.items()))
        conn.commit()
        conn.close()
        shutil.copyfile(db, path)


def generate(g, out: Path, seed: int, target: int, pools: dict | None = None) -> dict:
    """Writes the VS Code part into the home OUT (chat session files until `target` bytes) and its sidecar."""
    if pools is None:
        pools = g.build_pools(random.Random(f"gen-corpus:{seed}:pools"))
    corpus = VSCodeCorpus(g, out, seed, pools)
    corpus.run(target)
    expected = corpus.expected(target)
    (out / EXPECTED_NAME).write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")
    return expected


# ---------------------------------------------------------------------------------------------
# --check: replay every file as a reader must, and compare with vscode-expected.json.

class Replay:
    def __init__(self):
        self.bad: list[tuple[int, str]] = []
        self.kinds = [0, 0, 0, 0]
        self.kind0_after_first = 0
        self.lines = 0

    def jsonl(self, data: bytes):
        state = None
        for n, raw in enumerate(data.split(b"\n"), 1):
            if not raw.strip():
                continue
            self.lines += 1
            try:
                entry = json.loads(raw)
                kind = entry["kind"]
                if kind == 0:
                    if state is not None:
                        self.kind0_after_first += 1
                    state = entry["v"]
                elif state is None:
                    raise ValueError("before any kind-0 line")
                elif kind == 1:
                    k = entry["k"]
                    if k:
                        parent = walk(state, k)
                        if "v" in entry:
                            setitem(parent, k[-1], entry["v"])
                        else:
                            delitem(parent, k[-1])
                elif kind == 2:
                    k = entry["k"]
                    parent = walk(state, k)
                    arr = getitem(parent, k[-1], None)
                    if arr is None:
                        arr = []
                    if not isinstance(arr, list):
                        raise ValueError("push on a value that is not an array")
                    if "i" in entry:
                        del arr[entry["i"]:]
                    arr.extend(entry.get("v") or [])
                    setitem(parent, k[-1], arr)
                elif kind == 3:
                    k = entry["k"]
                    delitem(walk(state, k), k[-1])
                else:
                    raise ValueError(f"kind {kind!r}")
                self.kinds[kind] += 1
            except (ValueError, KeyError, IndexError, TypeError) as e:
                self.bad.append((n, str(e)[:80]))
        return state


def walk(state, path):
    cur = state
    for key in path[:-1]:
        cur = cur[key]
    return cur


def getitem(parent, key, default):
    if isinstance(parent, list):
        return parent[key] if 0 <= key < len(parent) else default
    return parent.get(key, default)


def setitem(parent, key, value):
    if isinstance(parent, list) and key == len(parent):
        parent.append(value)
    else:
        parent[key] = value


def delitem(parent, key):
    if isinstance(parent, dict):
        parent.pop(key, None)
    else:
        del parent[key]


def check(out: Path) -> int:
    """Replays every chat session file of OUT's VS Code folders; 0 when all agrees with the sidecar."""
    began = time.perf_counter()
    exp_path = out / EXPECTED_NAME
    if not exp_path.exists():
        print(f"check: {exp_path} is missing (generate with --vscode SIZE)")
        return 1
    expected = json.loads(exp_path.read_text())
    problems: list[str] = []
    book = UsageBook()
    seen: dict[str, dict] = {}
    total_bytes = 0
    bad_found: list[dict] = []
    lines, kinds, restated, files = 0, [0, 0, 0, 0], 0, 0
    biggest_line = 0
    for user in USER_DIRS:
        u = out / user
        folders = sorted(u.glob("workspaceStorage/*/chatSessions")) + sorted(u.glob("globalStorage/emptyWindowChatSessions"))
        for folder in folders:
            names = sorted(p.name for p in folder.iterdir())
            stems_jsonl = {n[:-6] for n in names if n.endswith(".jsonl")}
            for name in names:
                p = folder / name
                data = p.read_bytes()
                total_bytes += len(data)
                if name.endswith(".json") and name[:-5] in stems_jsonl:
                    json.loads(data)  # superseded by the .jsonl: must still be JSON
                    continue
                files += 1
                rel = str(p.relative_to(out))
                if name.endswith(".jsonl"):
                    r = Replay()
                    state = r.jsonl(data)
                    lines += r.lines
                    restated += r.kind0_after_first
                    for j in range(4):
                        kinds[j] += r.kinds[j]
                    biggest_line = max(biggest_line, max(len(x) for x in data.split(b"\n")))
                    if r.bad:
                        bad_found.append({"file": rel, "bad_lines": len(r.bad)})
                else:
                    state = json.loads(data)
                if not isinstance(state, dict):
                    problems.append(f"{rel}: no state")
                    continue
                book.add_state(state)
                seen[rel] = {"requests": len(state.get("requests", [])), "state_sha1": digest(state)}
    mb = total_bytes / 1e6
    for s in expected["per_session"]:
        got = seen.pop(s["file"], None)
        if got is None:
            problems.append(f"{s['file']}: missing")
        elif got["state_sha1"] != s["state_sha1"] or got["requests"] != s["requests"]:
            problems.append(f"{s['file']}: replays to {got['requests']} requests, sha1 {got['state_sha1']}; expected "
                            f"{s['requests']}, {s['state_sha1']}")
    problems += [f"{f}: not in {EXPECTED_NAME}" for f in seen]
    if book.as_json() != expected["usage"]:
        problems.append("usage recomputed from the replayed states differs from vscode-expected.json")
    if sorted(bad_found, key=lambda b: b["file"]) != sorted(expected["bad_lines"], key=lambda b: b["file"]):
        problems.append(f"bad lines {bad_found} != expected {expected['bad_lines']}")
    if total_bytes != expected["chat_session_bytes"]:
        problems.append(f"{total_bytes} bytes of chat session files, expected {expected['chat_session_bytes']}")
    if total_bytes < expected["target_bytes"]:
        problems.append(f"{total_bytes} bytes is short of the target {expected['target_bytes']}")
    took = time.perf_counter() - began
    counted = expected["usage"]["counted"]["totals"]
    print(f"check: {files} session files read ({expected['files']['json_superseded']} superseded .json skipped), "
          f"{mb:.1f} MB of chat session files (target {expected['target_bytes'] / 1e6:.1f} MB); {lines} log lines "
          f"(kind 0/1/2/3: {kinds[0]}/{kinds[1]}/{kinds[2]}/{kinds[3]}, {restated} kind-0 lines after the first, "
          f"{sum(b['bad_lines'] for b in bad_found)} bad), longest line {biggest_line / 1e6:.2f} MB; "
          f"{expected['sessions']} sessions, {expected['requests']} requests; counted {counted['requests']} requests, "
          f"{counted['total']} tokens; replayed in {took:.1f} s ({mb / took if took else 0:.0f} MB/s)")
    for p in problems[:20]:
        print(f"check: PROBLEM {p}")
    if problems:
        print(f"check: {len(problems)} problems")
        return 1
    print("check: every log replays to the state the generator wrote; usage, sessions and bad lines agree")
    return 0
