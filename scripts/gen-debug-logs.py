#!/usr/bin/env python3
"""Copilot Chat Agent Debug logs for the benchmarks: a VS Code User folder holding only debug logs
(their chats deleted, so every call counts from its log), of about SIZE bytes.

    scripts/gen-debug-logs.py OUT_DIR --size 200MB [--seed 1]

Writes OUT_DIR/.config/Code/User/workspaceStorage/<hash>/GitHub.copilot-chat/debug-logs/<session>/
main.jsonl, with a sub-agent's and a title's child log beside some, at most 50 sessions a
workspace (Copilot Chat keeps the 50 newest). The lines are shaped as
chatDebugFileLoggerService.ts writes them ({v, ts, dur, sid, type, name, spanId, parentSpanId,
status, attrs}); the llm_request attrs are the ones copilot-lens reads, and the other types'
attrs are in their own shapes (a prompt's content, a reply's output messages as OpenTelemetry's
JSON, a tool's args and result) with filler texts of realistic size. Prints the bytes written and the calls with the credits they record.
"""
import argparse
import json
import random
import sys
from pathlib import Path

MODELS = [("claude-sonnet-4.5", 1.0), ("gpt-5.4", 1.0), ("claude-opus-4.6", 3.0), ("gpt-5-mini", 0.0)]
WORDS = "the a function value test error file module build return type check read write config path session".split()


def parse_size(text: str) -> int:
    units = {"KB": 10**3, "MB": 10**6, "GB": 10**9}
    for unit, factor in units.items():
        if text.upper().endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


def filler(rng: random.Random, lo: int, hi: int) -> str:
    size = rng.randint(lo, hi)
    words = []
    while size > 0:
        word = rng.choice(WORDS)
        words.append(word)
        size -= len(word) + 1
    return " ".join(words)


class Session:
    def __init__(self, rng: random.Random, sid: str, start_ms: int):
        self.rng, self.sid, self.ms, self.span = rng, sid, start_ms, 0
        self.calls, self.nano = 0, 0

    def line(self, kind: str, name: str, attrs: dict, sid: str | None = None, status: str = "ok") -> str:
        self.span += 1
        self.ms += self.rng.randint(200, 20_000)
        entry = {"v": 1, "ts": self.ms, "dur": self.rng.randint(5, 9000), "sid": sid or self.sid, "type": kind,
                 "name": name, "spanId": f"{self.sid[:8]}-{self.span}", "parentSpanId": f"{self.sid[:8]}-0",
                 "status": status, "attrs": attrs}
        return json.dumps(entry, separators=(",", ":"))

    def call(self, model: str, multiplier: float, debug_name: str, sid: str | None = None) -> str:
        rng = self.rng
        cached = rng.randint(0, 40_000)
        input_tokens = cached + rng.randint(500, 30_000)
        output = rng.randint(20, 3000)
        nano = int(multiplier * 1_000_000_000 * rng.choice([1, 1, 1, 2]))
        self.calls += 1
        self.nano += nano
        attrs = {"model": model, "debugName": debug_name, "inputTokens": input_tokens, "outputTokens": output,
                 "cachedTokens": cached, "ttft": rng.randint(300, 4000), "responseId": f"resp-{self.sid[:8]}-{self.span}",
                 "copilotUsageNanoAiu": nano}
        return self.line("llm_request", f"chat:{model}", attrs, sid)

    def main_log(self, children: list) -> list[str]:
        rng = self.rng
        lines = [self.line("session_start", "session_start", {"copilotVersion": "0.62.0", "vscodeVersion": "1.134.0"})]
        model, multiplier = rng.choice(MODELS)
        for _ in range(rng.randint(2, 12)):
            lines.append(self.line("user_message", "user_message", {"content": filler(rng, 80, 1500)}))
            for _ in range(rng.randint(1, 8)):
                lines.append(self.call(model, multiplier, "panel/editAgent"))
                for _ in range(rng.randint(0, 3)):
                    tool = rng.choice(["read_file", "run_in_terminal", "grep_search", "apply_patch"])
                    attrs = {"args": filler(rng, 40, 600), "result": filler(rng, 100, 6000)}
                    lines.append(self.line("tool_call", tool, attrs))
            reply = [{"role": "assistant", "parts": [{"type": "text", "content": filler(rng, 100, 3000)}],
                      "finish_reason": "stop"}]
            lines.append(self.line("agent_response", "agent_response", {"response": json.dumps(reply)}))
        if rng.random() < 0.3:
            child = f"sub{self.span}"
            lines.append(self.line("child_session_ref", "runSubagent", {"childSessionId": child,
                                   "childLogFile": f"runSubagent-explorer-{child}.jsonl", "label": "runSubagent-explorer"}))
            calls = [self.call("claude-haiku-4.5", 0.33, "subagent", child) for _ in range(rng.randint(1, 6))]
            children.append((f"runSubagent-explorer-{child}.jsonl", calls))
        if rng.random() < 0.5:
            child = f"t{self.span}"
            children.append((f"title-{child}.jsonl", [self.call("gpt-4o-mini", 0.0, "title", child)]))
        return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--size", type=parse_size, required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    storage = args.out / ".config/Code/User/workspaceStorage"
    written = calls = nano = sessions = 0
    workspace, in_workspace = None, 50
    # Sessions from 2026-06-01 to 2026-11-30 UTC, none after the day the corpus is read.
    first_ms, last_ms = 1_780_272_000_000, 1_795_996_800_000
    while written < args.size:
        if in_workspace == 50:
            workspace = storage / f"{rng.getrandbits(128):032x}"
            (workspace / "GitHub.copilot-chat/debug-logs").mkdir(parents=True, exist_ok=True)
            (workspace / "workspace.json").write_text(json.dumps({"folder": f"file:///home/mona/code/p{sessions}"}))
            in_workspace = 0
        sid = f"{rng.getrandbits(32):08x}-0000-4000-8000-{rng.getrandbits(48):012x}"
        session = Session(rng, sid, rng.randint(first_ms, last_ms))
        folder = workspace / "GitHub.copilot-chat/debug-logs" / sid
        folder.mkdir()
        children: list = []
        for name, lines in [("main.jsonl", session.main_log(children)), *children]:
            text = "\n".join(lines) + "\n"
            (folder / name).write_text(text)
            written += len(text.encode())
        calls, nano, sessions, in_workspace = calls + session.calls, nano + session.nano, sessions + 1, in_workspace + 1
    print(f"{written} bytes in {sessions} sessions' debug logs: {calls} calls recording {nano / 1e9:.2f} credits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
