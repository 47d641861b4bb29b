#!/usr/bin/env python3
"""The file-level import graphs of the library and of the CLI binary, and their circles.

Every `crate::`, `super::` and `self::` path in a file of a crate (the library under src/, the
binary under src/bin/copilot-lens/; tests are left out: nothing imports them) is resolved to the
deepest module file it names, and each such file is an edge. The strongly connected components
of more than one file are the import circles. `--max N` exits 1 when a circle has more than N
files (the house rule is 1: none).

The page's side (`src/page/`) stands apart from the core: no file of the core imports it, and
only it names `js_sys`, `web_sys` or `wasm_bindgen`; a breach of either exits 1 too.

    python3 scripts/import-graph.py            # the circles, largest first
    python3 scripts/import-graph.py --max 1    # fail on any circle
"""

import argparse
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
# Each crate: its root folder, and the folder below it that is another crate's.
CRATES = [(SRC, SRC / "bin"), (SRC / "bin" / "copilot-lens", None)]


def module_files(root, other):
    """Module path (tuple of names) → file, for every module of the crate at `root`."""
    modules = {}
    for path in root.rglob("*.rs"):
        if other is not None and other in path.parents:
            continue
        rel = path.relative_to(root)
        parts = list(rel.with_suffix("").parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        modules[tuple(parts)] = path
    return modules


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def expand_use(tree):
    """`a::{b, c::{d}}` → [a::b, a::c::d]."""
    tree = tree.strip()
    depth = 0
    for i, ch in enumerate(tree):
        if ch == "{" and depth == 0:
            prefix, inner = tree[:i], tree[i + 1 : tree.rindex("}")]
            parts, depth2, start = [], 0, 0
            for j, c in enumerate(inner):
                if c == "{":
                    depth2 += 1
                elif c == "}":
                    depth2 -= 1
                elif c == "," and depth2 == 0:
                    parts.append(inner[start:j])
                    start = j + 1
            parts.append(inner[start:])
            return [p for part in parts if part.strip() for p in expand_use(prefix + part.strip())]
    return [re.sub(r"\s+as\s+\w+$", "", tree)]


def paths_in(text):
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        yield from expand_use(m.group(1))
    for m in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", text):
        yield m.group(1)


def resolve(path, module, modules, is_mod_file):
    segments = path.replace(" ", "").split("::")
    if segments[0] == "crate":
        base, rest = [], segments[1:]
    elif segments[0] in ("super", "self"):
        base = list(module) if is_mod_file else list(module[:-1])
        if segments[0] == "self":
            base = list(module)
        rest = segments[1:]
        while rest and rest[0] == "super":
            base = base[:-1]
            rest = rest[1:]
        if segments[0] == "super" and is_mod_file:
            base = base[:-1]  # a folder's mod.rs is the folder's module: its parent is one up
    else:
        return None
    found = tuple(base)
    for name in rest:
        if found + (name,) in modules:
            found = found + (name,)
        else:
            break
    return found if found in modules else None


def graph(root, other):
    modules = module_files(root, other)
    edges = {}
    for module, path in modules.items():
        is_mod_file = path.name in ("mod.rs", "lib.rs", "main.rs")
        # A file's unit tests (`#[cfg(test)] mod tests`, last by convention) import for testing only.
        text = strip_comments(path.read_text()).split("#[cfg(test)]")[0]
        targets = set()
        for p in paths_in(text):
            target = resolve(p, module, modules, is_mod_file)
            if target is not None and target != module:
                targets.add(target)
        edges[module] = targets
    return modules, edges


def circles(edges):
    """Tarjan's strongly connected components with more than one member."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out, key=len, reverse=True)


PAGE = ("page",)
BROWSER_CRATES = re.compile(r"\b(js_sys|web_sys|wasm_bindgen)\b")


def page_breaches(modules, edges):
    """The core's imports of the page's side, and the core's files that name the browser's crates."""
    in_page = lambda module: module[: len(PAGE)] == PAGE
    name = lambda module: modules[module].relative_to(SRC.parent)
    found = []
    for module, targets in sorted(edges.items()):
        if in_page(module):
            continue
        for target in sorted(targets):
            if in_page(target):
                found.append(f"{name(module)} imports the page's {name(target)}")
        text = strip_comments(modules[module].read_text()).split("#[cfg(test)]")[0]
        if BROWSER_CRATES.search(text):
            found.append(f"{name(module)} names a browser crate, which only the page's side may")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, help="fail when a circle has more files than this")
    args = parser.parse_args()
    failed = False
    for root, other in CRATES:
        modules, edges = graph(root, other)
        found = circles(edges)
        name = lambda m: str(modules[m].relative_to(SRC.parent))
        crate = root.relative_to(SRC.parent)
        print(f"{crate}: {len(modules)} files, {sum(len(t) for t in edges.values())} imports between them")
        if not found:
            print("no import circle")
        for component in found:
            print(f"circle of {len(component)} files: " + " ".join(name(m) for m in component))
        if other is not None:
            for breach in page_breaches(modules, edges):
                print(f"the page's side apart: {breach}", file=sys.stderr)
                failed = True
        if args.max is not None and found and len(found[0]) > args.max:
            print(f"{crate}: an import circle has {len(found[0])} files, more than {args.max}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
