"""Self-match: does each pattern match code shaped like itself, placed where such code lives?

For every pattern an instance is built (each `$X` becomes an identifier, each `$$$X` an identifier or
nothing) and put into the language's contexts (a file, a function body, a class body, an argument...). A
pattern that matches none of its instances reads differently alone than in real code: ast-grep will never
report it. For such a pattern the contexts where the instance parses cleanly give repairs: a pattern object
with that context and, as selector, the kind the instance has there; another grammar (tsx, cpp) is tried too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sgtools.core.errors import SgToolsError
from sgtools.engine import lifecycle
from sgtools.engine.process import Engine
from sgtools.rules.analysis import kinds
from sgtools.rules.analysis.contexts import TOP, Context, contexts_for
from sgtools.rules.analysis.runner import Batch, Outcome
from sgtools.rules.analysis.walk import METAVAR, pattern_text

# Grammars that read more than the rule's own: a pattern that only parses in the wider one.
WIDER = {"javascript": ("typescript", "tsx"), "typescript": ("tsx",), "c": ("cpp",)}


class Instance:
    __slots__ = ("code", "context", "file", "text")

    def __init__(self, context: Context, code: str, file: str, text: str) -> None:
        self.context = context
        self.code = code
        self.file = file
        self.text = text


class Probe:
    """One pattern under test: its self-match rule id and its instances in the batch."""

    __slots__ = ("instances", "language", "rule_id", "value")

    def __init__(self, language: str, value: Any, rule_id: str, instances: list[Instance] | None = None) -> None:
        self.language = language
        self.value = value  # the pattern as written (string or object)
        self.rule_id = rule_id
        self.instances: list[Instance] = [] if instances is None else instances

    def alive(self, outcome: Outcome) -> bool:
        return any(outcome.fired(self.rule_id, i.file) for i in self.instances)

    def readings(self, outcome: Outcome, engine: Engine, cwd: Path, *, full: bool = True) -> list[Reading]:
        """How each instance parses in its context (clean or not, its kind) and whether the pattern fired.
        Not `full`: only until one fired instance parses cleanly (one dump for a healthy pattern)."""
        def look(inst: Instance) -> Reading:
            fired = outcome.fired(self.rule_id, inst.file)
            nodes = kinds.dump(engine, inst.text, self.language, cwd)
            if not nodes or kinds.broken(nodes):
                return Reading(inst, fired, False, "")
            start, end = inst.context.span(inst.code)
            span = kinds.spanning(nodes, kinds.position(inst.text, start), kinds.position(inst.text, end))
            # A leaf (text in a string, JSX text, a comment) is not code the pattern could mean.
            inner = span[-1] if span else None
            leaf = inner is None or not any(n.depth > inner.depth and inner.start <= n.start and n.end <= inner.end
                                            for n in nodes[nodes.index(inner) + 1:nodes.index(inner) + 2])
            return Reading(inst, fired, True, "" if leaf or inner is None else inner.kind)

        if not full:
            for inst in self.instances:
                if outcome.fired(self.rule_id, inst.file) and (r := look(inst)).clean:
                    return [r]
        from concurrent.futures import ThreadPoolExecutor  # with logging ~20 million instructions: loaded to use

        workers = max(1, engine.settings.rule_check_workers)
        with ThreadPoolExecutor(max_workers=workers, **lifecycle.pool_args()) as pool:
            return list(pool.map(look, self.instances))


class Reading:
    __slots__ = ("clean", "fired", "inst", "kind")

    def __init__(self, inst: Instance, fired: bool, clean: bool, kind: str) -> None:
        self.inst = inst
        self.fired = fired
        self.clean = clean  # the file parses without ERROR or MISSING nodes
        self.kind = kind  # the innermost named node spanning exactly the instance ("" if none)


def instance_codes(pattern: str) -> list[str]:
    """Concrete code for a pattern: one identifier per metavariable name; `$$$` as one item, then as none."""
    names: dict[str, str] = {}

    def make(empty_multi: bool) -> str:
        counter = iter(range(1, 10_000))

        def repl(m: re.Match[str]) -> str:
            multi = m.group(0).startswith("$$$")
            name = m.group(1) or m.group(2)
            if multi and empty_multi:
                return ""
            if not name or name == "_":
                return f"zq{900 + next(counter)}"
            return names.setdefault(name, f"zq{len(names) + 1}")

        return METAVAR.sub(repl, pattern)

    codes = [make(False)]
    if "$$$" in pattern:
        codes.append(make(True))
    return list(dict.fromkeys(c.strip() for c in codes if c.strip()))


def plan(batch: Batch, key: str, language: str, value: Any) -> Probe:
    """Add a pattern's self-match rule and instance files to `batch`."""
    probe = Probe(language, value, batch.add_rule(f"{key}-self", {"language": language, "rule": {"pattern": value}}))
    text = pattern_text(value)
    contexts = [TOP] if isinstance(value, Mapping) else contexts_for(language)
    for v, code in enumerate(instance_codes(text)):
        for c, ctx in enumerate(contexts):
            full = ctx.fill(code)
            name = batch.add_file(f"{key}-v{v}c{c}", language, full)
            probe.instances.append(Instance(ctx, code, name, full))
    return probe


class Diagnosis:
    __slots__ = ("candidates", "code_kind", "read_as", "read_broken", "where")

    def __init__(self, read_as: str, read_broken: bool, code_kind: str, where: str,
                 candidates: list[tuple[Any, str, dict[str, str]]]) -> None:
        self.read_as = read_as  # the kind ast-grep reads the pattern as ("" when unknown)
        self.read_broken = read_broken  # the pattern's own parse has ERROR nodes
        self.code_kind = code_kind  # the kind the instance has in a clean context ("" when none)
        self.where = where  # the name of that context
        self.candidates = candidates  # (repaired pattern, why, files it must match: name->text)


def diagnose(engine: Engine, probe: Probe, readings: list[Reading], cwd: Path) -> Diagnosis:
    """Why a pattern misses clean code, and pattern objects that might repair it (still to be verified)."""
    text = pattern_text(probe.value)
    read_as, read_broken = _read_kind(engine, text, probe.language, cwd)
    code_kind, where = "", ""
    candidates: list[tuple[Any, str, dict[str, str]]] = []
    by_kind: dict[str, dict[str, str]] = {}
    for r in readings:
        if not r.clean or not r.kind or r.fired:
            continue
        inst, kind = r.inst, r.kind
        if not code_kind or (where == TOP.name and inst.context is not TOP):
            code_kind, where = kind, inst.context.name
        must = by_kind.setdefault(kind, {})
        must[inst.file] = inst.text
        if isinstance(probe.value, Mapping) or inst.context is TOP or any(
                c[0]["selector"] == kind for c in candidates):
            continue
        context = inst.context.fill(text.strip()).strip("\n")
        candidates.append(({"context": context, "selector": kind}, f"as a {kind} in {inst.context.name}", must))
    return Diagnosis(read_as, read_broken, code_kind, where, candidates)


def _read_kind(engine: Engine, text: str, language: str, cwd: Path) -> tuple[str, bool]:
    try:
        tree, _ = engine.dump_tree(text, language, "pattern", cwd=cwd)
    except SgToolsError:
        return "", False
    lines = [ln.strip() for ln in tree.splitlines() if ln.strip()]
    first = lines[0].split(" ", 1)[0] if lines else ""
    return ("" if first == "MetaVar" else first), any(ln.split(" ", 1)[0] in ("ERROR", "MISSING") for ln in lines)
