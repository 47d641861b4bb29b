#!/usr/bin/env python3
"""Runs every command of the user guide and the README, so neither can drift from the tool (issue 51).

    scripts/check-guide.py [--cli target/release/copilot-lens] [--bless] [FILE.md ...]

Every `sh` code block must say what the check does with it:
- ```sh run``` runs the block with bash (-e: every command must succeed), `copilot-lens` on PATH
  from --cli and no cache setting (so the default cache under ~/.cache), HOME a fresh copy of a
  fixture home (`home=inventory/home` by default, a path under fixtures/) so that `~` is that
  home, in a work folder of its own (per file: a file's blocks run in order and see what the
  blocks before wrote) that holds `usage-report.csv` and `not-a-report.csv` (fixtures/bills).
  `exit=N` expects that exit status instead of 0.
- ```sh no-run``` is not run (it builds, serves or benchmarks for minutes): the repository paths it
  names (scripts/..., tests/..., examples/...) must exist, and it may not run copilot-lens.
A ```text output``` (or ```text stderr```) block right after a run block must equal what the block
printed on stdout (stderr), the sandbox's home written `~`. --bless writes what was printed into
those blocks instead (review the diff).
The relative links of README.md and docs/benchmarks.md must lead to files that exist.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
# docs/benchmarks.md is a chapter by inclusion (docs/src/benchmarks.md).
DEFAULT_FILES = ["README.md", "docs/benchmarks.md",
                 *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs/src").rglob("*.md"))]
DEFAULT_HOME = "inventory/home"
WORK_FILES = {"usage-report.csv": "fixtures/bills/ai-credits.csv", "not-a-report.csv": "fixtures/bills/not-a-report.csv"}
FENCE = re.compile(r"^(```+|~~~+)(.*)$")
REPO_PATH = re.compile(r"(?<![\w./-])((?:scripts|tests|examples|fixtures|src|docs|www)/[\w./-]*\w)")
TIMEOUT_S = 300
# A relative link of a file outside the book (the book's own are checked in its HTML by
# scripts/check-links.py); images are left out: docs/screenshot.png is made by scripts/screenshot.mjs.
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s#]+)(?:#[^)]*)?\)")


class Block:
    def __init__(self, path, line, words, body, fence_start, fence_end):
        self.path, self.line, self.body = path, line, body
        self.lang = words[0] if words else ""
        self.flags = {word for word in words[1:] if "=" not in word}
        self.options = dict(word.split("=", 1) for word in words[1:] if "=" in word)
        self.span = (fence_start, fence_end)  # the body's lines, for --bless

    def where(self):
        return f"{self.path}:{self.line}"


def blocks_of(path):
    lines = (REPO / path).read_text().split("\n")
    found, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, words = opening.group(1), opening.group(2).split()
        end = index + 1
        while end < len(lines) and not (lines[end].startswith(fence) and lines[end].strip() == fence):
            end += 1
        found.append(Block(path, index + 1, words, "\n".join(lines[index + 1 : end]), index + 1, end))
        index = end + 1
    return found, lines


class Sandbox:
    """A file's work folder and its fixture homes, each copied fresh once."""

    def __init__(self, root):
        self.root = pathlib.Path(root)
        self.work = self.root / "work"
        self.work.mkdir()
        for name, fixture in WORK_FILES.items():
            shutil.copy(REPO / fixture, self.work / name)
        self.homes = {}

    def home(self, name):
        if name not in self.homes:
            home = self.root / f"home-{len(self.homes)}"
            fixture = REPO / "fixtures" / name
            if not fixture.is_dir():
                raise SystemExit(f"no fixture home fixtures/{name}")
            shutil.copytree(fixture, home, symlinks=True)
            self.homes[name] = home
        return self.homes[name]


def run(block, sandbox, cli_dir):
    home = sandbox.home(block.options.get("home", DEFAULT_HOME))
    # As on a person's machine: no cache setting, so the cache is the default one under ~/.cache.
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("COPILOT_LENS") and not key.startswith("XDG_")}
    env.update(HOME=str(home), PATH=f"{cli_dir}{os.pathsep}{env['PATH']}")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", block.body], cwd=sandbox.work, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    shown = lambda text: text.replace(str(home), "~").replace(str(sandbox.work) + "/", "")
    return done.returncode, shown(done.stdout), shown(done.stderr)


def check_no_run(block):
    problems = []
    for line in block.body.split("\n"):
        command = line.strip()
        if command.startswith("copilot-lens") or " copilot-lens " in f" {command} ":
            problems.append(f"{block.where()}: a copilot-lens command in a no-run block: run it (```sh run```)")
        for name in REPO_PATH.findall(command.split("#")[0]):
            if not (REPO / name).exists() and not name.startswith(("docs/book", "www/docs")):
                problems.append(f"{block.where()}: {name} does not exist")
    return problems


def check_links(path):
    if path.startswith("docs/src/"):
        return []
    text = (REPO / path).read_text()
    return [f"{path}: a link to {target}, which does not exist" for target in LINK.findall(text)
            if ":" not in target and not ((REPO / path).parent / target).exists()]


def check_file(path, cli_dir, bless):
    blocks, lines = blocks_of(path)
    problems, ran, edits = check_links(path), 0, []
    with tempfile.TemporaryDirectory(prefix="check-guide-") as root:
        sandbox = Sandbox(root)
        printed = None
        for block in blocks:
            if block.lang in ("sh", "bash", "shell", "console"):
                printed = None
                if "run" in block.flags:
                    status, stdout, stderr = run(block, sandbox, cli_dir)
                    ran += 1
                    expected = int(block.options.get("exit", 0))
                    if status != expected:
                        problems.append(f"{block.where()}: exit status {status}, not {expected}\n{block.body}\n"
                                        f"--- stdout\n{stdout}--- stderr\n{stderr}")
                    printed = {"output": stdout, "stderr": stderr}
                elif "no-run" in block.flags:
                    problems += check_no_run(block)
                else:
                    problems.append(f"{block.where()}: an sh block says neither run nor no-run")
            elif block.lang == "text" and block.flags & {"output", "stderr"}:
                stream = "output" if "output" in block.flags else "stderr"
                if printed is None:
                    problems.append(f"{block.where()}: a text {stream} block not right after a run block")
                    continue
                actual = printed[stream].rstrip("\n")
                if bless:
                    edits.append((block.span, actual))
                elif actual != block.body:
                    problems.append(f"{block.where()}: the command printed, on {stream}:\n{actual}\n"
                                    f"--- the guide shows:\n{block.body}\n(scripts/check-guide.py --bless writes it)")
                printed = None
    if edits:
        for (start, end), text in reversed(edits):
            lines[start:end] = text.split("\n") if text else []
        (REPO / path).write_text("\n".join(lines))
    return ran, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", default=str(REPO / "target/release/copilot-lens"))
    parser.add_argument("--bless", action="store_true")
    parser.add_argument("files", nargs="*", default=DEFAULT_FILES)
    args = parser.parse_args()
    cli = pathlib.Path(args.cli).resolve()
    if not os.access(cli, os.X_OK):
        raise SystemExit(f"{cli}: no copilot-lens binary there (cargo build --release)")
    with tempfile.TemporaryDirectory(prefix="check-guide-bin-") as bin_dir:
        # The guide's commands say copilot-lens, whatever the binary checked is called.
        os.symlink(cli, os.path.join(bin_dir, "copilot-lens"))
        total, problems = 0, []
        for path in args.files:
            ran, found = check_file(path, bin_dir, args.bless)
            total += ran
            problems += found
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"check-guide: {total} command blocks run in {len(args.files)} files, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
