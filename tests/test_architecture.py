"""The package layout is the architecture: imports only go down the layers, no module outgrows ~500 lines,
no function outgrows cyclomatic complexity 20.

Layers, lowest first: one folder each, no module carved out of its folder's layer. A module may import its own
layer and the ones below, never one above. Imports inside functions count too: a lazy import is still a
dependency.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from radon.complexity import cc_visit_ast
from radon.visitors import Class, Function

PACKAGE = Path(__file__).resolve().parent.parent / "sgtools"
MAX_LINES = 500
MAX_COMPLEXITY = 20

LAYERS: list[tuple[str, ...]] = [
    # The package itself (its version) and core: errors, settings, languages, YAML, globs, atomic writes, caches.
    ("sgtools", "sgtools.core"),
    # Result and argument shapes (TypedDicts, no behaviour): the vocabulary every layer speaks, the SPEC in code.
    ("sgtools.contracts",),
    ("sgtools.engine",),  # the only process boundary (spawn.py), ast-grep (process.py), texts scanned as files
    ("sgtools.project",),  # workspace confinement, sgconfig.yml, language resolution, multi-file writes
    ("sgtools.rules",),  # rule model, loading, checks, the store, listing, analysis
    ("sgtools.edit",),  # text edits and diffs, structural find/rewrite
    ("sgtools.fixits",),  # fix-its: built, verified by re-scanning
    ("sgtools.scan",),  # snippet and path scans, diagnostics, CI collection
    # Operations that span wings: test_rule and suggest_rule check drafts with the snippet scan, apply_fixes
    # applies what a path scan found, server_info/doctor reports on engine, config and rule health.
    ("sgtools.workflows",),
    ("sgtools.community",),  # community sources, search, import (through the rule store)
    ("sgtools.present",),  # text, SARIF, GitHub, JSON renderings of service results
    ("sgtools.cli", "sgtools.server", "sgtools.__main__"),  # adapters (the Claude hook protocol is cli's)
]
# The one adapter allowed to reach the other: `sgtools serve` starts the MCP server (imported inside `run`).
ALLOWED = {("sgtools.cli.serve", "sgtools.server")}


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _layer(module: str) -> int:
    best, rank = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), i
    assert rank >= 0, f"{module} is in no layer: add it to LAYERS"
    return rank


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The module's syntax tree, parsed once per process: four checks below read every module (read only)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the module, walked once per process (the imports and the process starters are read from it)."""
    return tuple(ast.walk(_tree(path)))


@functools.cache
def _imports(path: Path) -> frozenset[str]:
    """Every sgtools module (or package) `path` imports, at any depth of the file."""
    found: set[str] = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in MODULES else node.module)
    return frozenset(m for m in found if m == "mcp" or m.startswith(("sgtools.", "mcp.")))


def test_every_module_is_in_a_layer() -> None:
    for module in MODULES:
        _layer(module)


def test_imports_only_go_down() -> None:
    upward = []
    for module, path in MODULES.items():
        for target in sorted(_imports(path)):
            if target.startswith("mcp") or (module, target) in ALLOWED or target == "sgtools":
                continue
            if _layer(target) > _layer(module):
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_the_cli_never_imports_mcp_and_reaches_the_server_only_to_serve() -> None:
    bad = [f"{m} -> {t}" for m, p in MODULES.items() if m.startswith("sgtools.cli")
           for t in _imports(p) if t.split(".")[0] == "mcp"
           or (t.startswith("sgtools.server") and (m, "sgtools.server") not in ALLOWED)]
    assert bad == []


SPAWN_MODULES = {"subprocess", "multiprocessing", "pty"}
SPAWN_OS = ("os.system", "os.popen", "os.fork", "os.posix_spawn", "os.exec", "os.spawn")
SPAWN_ASYNC = {"create_subprocess_exec", "create_subprocess_shell", "run_process", "open_process"}


def _spawns(name: str) -> bool:
    return name.split(".")[0] in SPAWN_MODULES or name.startswith(SPAWN_OS) or name.rsplit(".")[-1] in SPAWN_ASYNC


def _dotted(node: ast.Attribute) -> str:
    """`a.b.c` for an attribute chain on a name; `<expr>.b.c` on anything else (a call's result, an index), which
    `_spawns` judges the same as its full text: by the last part only. (ast.unparse of every attribute of the
    package was most of this test's time.)"""
    parts: list[str] = []
    cur: ast.expr = node
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    parts.append(cur.id if isinstance(cur, ast.Name) else "<expr>")
    return ".".join(reversed(parts))


def test_only_engine_spawn_starts_processes() -> None:
    """ast-grep, git and the C compiler all start through `engine/spawn.py`: one deadline, one output cap, one
    process-group kill, one child environment."""
    starters: list[str] = []
    for module, path in MODULES.items():
        if module == "sgtools.engine.spawn":
            continue
        for node in _nodes(path):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Attribute):
                names = [_dotted(node)]
            starters.extend(f"{module}: {n}" for n in names if _spawns(n))
    assert starters == []


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    """The test above can fail: an engine module importing the rule store is caught."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from sgtools.rules.store import add_or_update_rule\n")
    assert _imports(probe) == {"sgtools.rules.store"}
    assert _layer("sgtools.rules.store") > _layer("sgtools.engine.process")
    assert _layer("sgtools.workflows.rule_testing") > _layer("sgtools.scan.snippet") > _layer("sgtools.rules.store")
    assert _spawns("subprocess.Popen") and _spawns("os.execvp") and not _spawns("self.empty")
    popen = ast.parse("subprocess.Popen(['x'])\nmake().create_subprocess_exec()").body
    assert [_spawns(_dotted(n.value.func)) for n in popen] == [True, True]  # type: ignore[attr-defined]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of `graph`: its strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(out)


# The one circle of files kept: the write journal and the workspace lock need each other, by design.
ALLOWED_CYCLES = [["sgtools.project.journal", "sgtools.project.workspace"]]


def test_at_most_the_journal_and_workspace_import_each_other() -> None:
    """No circle of files inside a layer either (lazy imports count): only journal/workspace, which is sound."""
    graph = {m: {t for t in _imports(p) if t in MODULES and t != m} for m, p in MODULES.items()}
    assert _cycles(graph) == ALLOWED_CYCLES


def test_the_cycle_checker_sees_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}}
    assert _cycles(graph) == [["a", "b", "c"], ["e", "f"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_is_over_the_line_limit() -> None:
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def _blocks(items: list[Function | Class]) -> list[Function]:
    out: list[Function] = []
    for item in items:
        if isinstance(item, Class):
            out.extend(_blocks(list(item.methods)))
        else:
            out.append(item)
            out.extend(_blocks(list(item.closures)))
    return out


def test_no_function_is_over_complexity_20() -> None:
    over = {f"{m}:{b.lineno} {b.fullname} ({b.complexity})" for m, p in MODULES.items()
            for b in _blocks(cc_visit_ast(_tree(p))) if b.complexity > MAX_COMPLEXITY}
    assert sorted(over) == []
