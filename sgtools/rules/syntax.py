"""The syntax-tree dump: how ast-grep parses a snippet (`cst`, `ast`) or reads a pattern (`pattern`).

It exists so an agent can see why a pattern matches nothing: the hints name ERROR/MISSING nodes and the
"several top-level nodes" case, which are the usual causes.
"""

from __future__ import annotations

import re
from pathlib import Path

from sgtools.contracts.rules import SyntaxTreeResult
from sgtools.core import languages
from sgtools.core.errors import BadInput, SgToolsError, TooLarge
from sgtools.core.settings import Settings
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.project.workspace import Workspace

FORMATS = ("cst", "ast", "pattern")
_POSITION = re.compile(r"\((\d+),(\d+)\)-\((\d+),(\d+)\)\s*$")
_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*: ")
_MULTIPLE = "Multiple AST nodes"


def check_code_arg(code: object, what: str, settings: Settings, *, allow_blank: bool = False) -> str:
    """ast-grep takes patterns and dumped code as one command-line argument: refuse what argv cannot carry."""
    if not isinstance(code, str):
        raise BadInput(f"The {what} must be text, not {type(code).__name__}.")
    if not code.strip() and not allow_blank:
        raise BadInput(f"The {what} is empty. Pass some code.")
    if "\x00" in code:
        raise BadInput(f"The {what} contains a NUL byte, which cannot be passed to ast-grep. Remove it.")
    size = len(code.encode("utf-8", "surrogatepass"))
    limit = settings.max_arg_bytes
    if size > limit:
        raise TooLarge(
            f"The {what} is {size} bytes; ast-grep receives it as one command-line argument, which is capped at "
            f"{limit} bytes (Linux allows 128 KiB per argument). Pass a smaller piece of code."
        )
    return code


def check_format(fmt: object) -> str:
    name = fmt.strip().lower() if isinstance(fmt, str) else None
    if name not in FORMATS:
        raise BadInput(f"Unknown tree format {fmt!r}. Use one of: {', '.join(FORMATS)}.")
    return name


def problem_nodes(tree: str) -> list[tuple[str, int | None]]:
    """ERROR and MISSING nodes in a dump, with their 1-based line where the dump shows positions."""
    found: list[tuple[str, int | None]] = []
    for raw in tree.splitlines():
        node = _FIELD.sub("", raw.strip())
        kind = node.split(" ", 1)[0]
        if kind in ("ERROR", "MISSING"):
            pos = _POSITION.search(node)
            found.append((node if kind == "MISSING" else kind, int(pos.group(1)) + 1 if pos else None))
    return found


def top_level_kinds(tree: str) -> list[str]:
    """Kinds of the root's children in a cst/ast dump (indented by exactly two spaces)."""
    kinds: list[str] = []
    for raw in tree.splitlines()[1:]:
        if raw.startswith("  ") and not raw.startswith("   "):
            kinds.append(_FIELD.sub("", raw.strip()).split(" ", 1)[0])
    return kinds


def _where(nodes: list[tuple[str, int | None]]) -> str:
    lines = sorted({line for _, line in nodes if line is not None})
    return f" (line {', '.join(map(str, lines[:5]))})" if lines else ""


def _hints(fmt: str, tree: str, lang: str, tree_source: str) -> list[str]:
    nodes = problem_nodes(tree)
    if not nodes:
        return []
    names = ", ".join(sorted({name for name, _ in nodes}))
    if fmt == "pattern":
        return [
            f"ast-grep could not parse the pattern as complete {lang} code: it contains {names}. Such a pattern "
            "matches nothing or not what you mean. Write a whole expression or statement with balanced brackets, "
            "or use a rule with `kind`/`has` (or `pattern: {context, selector}`) for a fragment."
        ]
    hint = f"The code does not parse cleanly as {lang}: it has {names}{_where(nodes)}."
    if "$" in tree_source:
        hint += (" If it is a pattern with metavariables such as $A, dump it with format \"pattern\": cst and ast "
                 "parse the raw text, where a metavariable may not be valid syntax.")
    return [hint]


def _tree_language(ws: Workspace, language: str) -> tuple[str, Path | str]:
    """A built-in language needs no config; a custom one (sgconfig `customLanguages`) is parsed with the project's
    config, so its parser library loads (when trusted)."""
    if languages.canonical(language) is not None or not isinstance(language, str):
        return languages.require(language), NO_CONFIG
    from sgtools.project.config import load_config
    from sgtools.project.languages import custom_languages

    try:
        cfg = load_config(ws)
    except SgToolsError:
        return languages.require(language), NO_CONFIG
    if language in custom_languages(cfg):
        return language, cfg.path
    return languages.require(language), NO_CONFIG


def dump_syntax_tree(ws: Workspace, engine: Engine, code: str, language: str, format: str = "cst") -> SyntaxTreeResult:
    """`{tree, language, format, hints}`; a pattern ast-grep refuses gives an empty tree and hints saying why."""
    fmt = check_format(format)
    lang, config = _tree_language(ws, language)
    check_code_arg(code, "code", ws.settings)
    tree, result = engine.dump_tree(code, lang, fmt, cwd=ws.root, config=config)
    hints: list[str]
    if tree:
        hints = _hints(fmt, tree, lang, code)
    elif fmt == "pattern" and result.returncode != 0:
        failure = engine.fail(result, "read the pattern")
        hints = [pattern_refusal_hint(ws, engine, code, lang, failure.details.get("causes") or [failure.message])]
    else:
        raise engine.fail(result, f"dump the {fmt} tree")
    return {"tree": tree, "language": lang, "format": fmt, "hints": hints}


def pattern_refusal_hint(ws: Workspace, engine: Engine, code: str, lang: str, causes: list[str]) -> str:
    """Why ast-grep refused a pattern, and what to do; for several top-level nodes, name them."""
    # ast-grep quotes the pattern after swapping `$` for its expando character (µ for Python and others).
    cause = "; ".join(c.rstrip(".") for c in causes)
    if "µ" not in code:
        cause = cause.replace("µ", "$")
    if _MULTIPLE in cause:
        tree, _ = engine.dump_tree(code, lang, "cst", cwd=ws.root)
        # The raw text parse sees `$A` as an ERROR; only the real statements say what the several nodes are.
        kinds = [k for k in top_level_kinds(tree) if k != "ERROR" and re.match(r"^[A-Za-z_]\w*$", k)]
        listed = f" ({len(kinds)} top-level nodes: {', '.join(kinds)})" if len(kinds) > 1 else ""
        return (
            f"ast-grep cannot use this as a pattern: it finds multiple AST nodes{listed}, and a pattern must be "
            "one node. Search for one statement or expression at a time, or write a rule that combines them "
            "with `has`, `follows` or `precedes`."
        )
    return (
        f"ast-grep cannot use this as a pattern: {cause}. Make it one complete {lang} expression or statement "
        "(metavariables like $A stand for one node, $$$A for several)."
    )
