"""What the fix harness proved, per rule and per language: the data behind `fixSafety: safe`.

`community_index/fix_evidence.tsv` holds one line per bundled rule whose fix the harness applied on real code:
how many times, how many of those the language's own tool accepted before the fix ("checked"), how many of
those failed after it ("failures": the tool rejects the fixed file, or it re-parses with new ERROR nodes), and
the tools with how many each checked. A bundled rule may be `fixSafety: safe` only with checked >= MIN_PROVEN
and failures == 0 here, or with `metadata.fixSafetyArgument` saying why its fix is purely syntactic
(tests/test_fix_safety.py enforces it). `python -m bin.fix_harness --evidence` rewrites the lines of the
languages it ran and keeps the others. The header names, for each language, the command that reproduces its
rows and the tools with their versions (`# go: python -m bin.fix_harness --evidence --languages go; tools: ...`),
so rows written by different runs each keep their own command.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
EVIDENCE = REPO / "community_index" / "fix_evidence.tsv"
MIN_PROVEN = 20
HEADER = "# rule\tlanguage\tapplied\tchecked\tfailures\ttools"
REPARSE_ONLY = "none run here (ast-grep re-parse only)"
COMMAND_LINE = re.compile(r"^# ([\w+-]+): (.+)$")


@dataclass(frozen=True)
class Row:
    rule: str
    language: str
    applied: int
    checked: int
    failures: int
    tools: str

    @property
    def proven(self) -> bool:
        return self.checked >= MIN_PROVEN and self.failures == 0

    def line(self) -> str:
        return "\t".join([self.rule, self.language, str(self.applied), str(self.checked), str(self.failures),
                          self.tools or "-"])


def rows(fixes: Sequence[Any]) -> dict[str, Row]:
    """One row per rule from the harness's checked fixes."""
    by_rule: dict[str, list[Any]] = defaultdict(list)
    for f in fixes:
        by_rule[f.rule].append(f)
    out: dict[str, Row] = {}
    for rule, mine in sorted(by_rule.items()):
        checked = [f for f in mine if f.built and f.built[0]]
        failures = sum(1 for f in mine if f.broken is not None)
        tools = Counter(f.tool for f in checked if f.tool)
        out[rule] = Row(rule, mine[0].lang, len(mine), len(checked), failures,
                        ", ".join(f"{t} {n}" for t, n in sorted(tools.items(), key=lambda x: (-x[1], x[0]))))
    return out


def load(path: Path = EVIDENCE) -> dict[str, Row]:
    out: dict[str, Row] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                rule, lang, applied, checked, failures, tools = line.split("\t")
                out[rule] = Row(rule, lang, int(applied), int(checked), int(failures), "" if tools == "-" else tools)
    return out


def commands(path: Path = EVIDENCE) -> dict[str, str]:
    """{language: the command whose run wrote that language's rows, with its tools}, from the header lines
    `# <language>: <command>; tools: ...`."""
    out: dict[str, str] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            found = COMMAND_LINE.match(line)
            if found:
                out[found[1]] = found[2]
    return out


def write(new: dict[str, Row], languages: Sequence[str], command: str, path: Path = EVIDENCE,
          tools: dict[str, str] | None = None) -> None:
    """The file with the rows of `languages` replaced by `new`'s and every other language's rows kept. Each
    language's rows are named in the header by the command that reproduces them (`# go: python -m ...; tools:
    go build (go1.19.8)`): this run's for the languages it wrote, the earlier runs' for the others."""
    kept = {r: row for r, row in load(path).items() if row.language not in languages}
    merged = {**kept, **new}
    by_lang = {lang: text for lang, text in commands(path).items() if lang not in languages}
    for lang in sorted({row.language for row in new.values()}):
        used = sorted({t.rsplit(" ", 1)[0] for row in new.values() if row.language == lang
                       for t in row.tools.split(", ") if t})
        labels = "; ".join((tools or {}).get(t, t) for t in used) or REPARSE_ONLY
        by_lang[lang] = f"{command}; tools: {labels}"
    live = {row.language for row in merged.values()}
    notes = [f"# {lang}: {by_lang[lang]}" for lang in sorted(by_lang) if lang in live]
    body = [merged[r].line() for r in sorted(merged)]
    path.write_text("\n".join([*notes, HEADER, *body]) + "\n", encoding="utf-8")


def table(fixes: Sequence[Any], tools: dict[str, str], command: str | None = None) -> list[str]:
    """The per-language table of docs/fixes.md: fixes applied, checked before and after by the language's own
    tool, failures (after fails where before passed, or new parse errors), failures among safe fixes, the
    toolchain, and (given `command`) the command that printed the row, so rows of several runs keep theirs."""
    extra = (" command |", " --- |") if command else ("", "")
    out = ["| language | fixes applied (safe) | checked before | passed after | failures | failures among "
           "safe | toolchain |" + extra[0], "| --- | --- | --- | --- | --- | --- | --- |" + extra[1]]
    for lang in sorted({f.lang for f in fixes}):
        mine = [f for f in fixes if f.lang == lang]
        before = [f for f in mine if f.built and f.built[0]]
        after = [f for f in before if f.built and f.built[1] and f.broken is None]
        fails = [f for f in mine if f.broken is not None]
        safe = sum(f.safety == "safe" for f in mine)
        used = sorted({f.tool for f in before if f.tool})
        label = "; ".join(tools.get(t, t) for t in used) if used else REPARSE_ONLY
        out.append(f"| {lang} | {len(mine)} ({safe}) | {len(before)} | {len(after)} | {len(fails)} | "
                   f"{sum(f.safety == 'safe' for f in fails)} | {label} |" + (f" `{command}` |" if command else ""))
    return out
