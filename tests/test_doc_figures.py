"""Every measured figure in README.md and docs/ names beside it the command in the repository that prints it
(issue 32 item 6), and every command the docs name exists: the script, its flags and subcommands, bin/bench's
row groups, the test file and the test.

"Beside it" is the paragraph, list item or table the figure is in (a table or code block may take its command
from the paragraph just above it). A figure is a time (ms, s, minutes), a ratio (1.2x), a share (57%), or a
count of a result (12/15, 39 of 60). Counts of the repository itself (rules, fixes, cases) are checked against
the repository by tests/test_doc_counts.py. Figures that are definitions or settings, not measurements, are
listed in NOT_MEASURED with the reason. The check is textual: it cannot tell that a named command prints the
very figure beside it, only that no figure stands without one and that no named command is gone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))]

FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?\s?(?:ms|s|seconds|minutes|min)\b|\b\d+(?:\.\d+)?x\b|\d+(?:\.\d+)?%"
                    r"|\b\d+/\d+\b|\b\d[\d,]* of (?:the )?\d|\b\d+(?:\.\d+)? million\b")
COMMAND = re.compile(r"\bbin[/.]\w+|\bpytest\b|\b(?:tests|e2e)/\w+\.py|\.ci/run|`sgtools \w")
CODE_SPAN = re.compile(r"`[^`]*`")

# (doc, text): a figure in that text is a definition or a setting, not something measured
NOT_MEASURED = {
    ("docs/CONTRIBUTING-internal.md", "(exit 0/1 ok)"): "ast-grep's exit codes",
    ("docs/SPEC.md", "the 95% lower bound"): "the definition of confidenceCap",
    ("docs/fixes.md", "the 95% Wilson lower bound"): "the definition of confidenceCap",
    ("docs/fixes.md", "2 of 2 gives 0.34, 37 of 37 gives 0.91"): "arithmetic of that definition",
    ("docs/fixes.md", "at least 35 of 35 cases"): "arithmetic of that definition",
    ("docs/suggest-rule.md", "(3 s)"): "the default of SGTOOLS_SUGGEST_PROOF_SECONDS",
}


def blocks(text: str) -> list[tuple[int, str, str]]:
    """(first line, kind, text) of each paragraph, list item, table and code block; headings end a section."""
    out: list[tuple[int, str, str]] = []
    lines: list[str] = []
    kind, start, fence = "", 0, False
    for number, line in enumerate(text.splitlines(), 1):
        opens = line.startswith("```")
        if fence or opens:
            now = "code"
            fence = fence != opens
        elif not line.strip():
            now = "blank"
        else:
            now = "head" if line.startswith("#") else "table" if line.startswith("|") else "text"
        item = now == "text" and re.match(r"(- |\d+b?\. )", line)
        if now != kind or item or now == "head":
            if lines and kind != "blank":
                out.append((start, kind, " ".join(lines)))
            lines, kind, start = [], now, number
        lines.append(line)
    if lines and kind != "blank":
        out.append((start, kind, " ".join(lines)))
    return out


def unnamed_figures(name: str, text: str) -> list[str]:
    """The blocks of one doc that hold a measured figure and name no command."""
    found, above = [], ""
    for start, kind, block in blocks(text):
        if kind == "head":
            above = ""
            continue
        plain = CODE_SPAN.sub(" ", block) if kind != "code" else block
        for (doc, phrase) in NOT_MEASURED:
            if doc == name:
                plain = plain.replace(phrase, " ")
        figures = [m.group(0) for m in FIGURE.finditer(plain)]
        named = COMMAND.search(block) or (kind in ("table", "code") and COMMAND.search(above))
        if figures and not named:
            found.append(f"{name}:{start}: {figures[:4]} in: {block[:120]}")
        if kind == "text":
            above = block
    return found


@pytest.mark.parametrize("name", DOCS)
def test_every_figure_names_its_command(name: str) -> None:
    assert unnamed_figures(name, (REPO / name).read_text(encoding="utf-8")) == []


def test_a_figure_without_a_command_is_caught() -> None:
    """The check itself: a timing, a ratio or a share with no command beside it is reported; with one, not."""
    bare = "# T\n\nThe scan took 1.2 s on the VM, 3.4x bare ast-grep.\n\n| a | b |\n| --- | --- |\n| x | 57% |\n"
    assert len(unnamed_figures("x.md", bare)) == 2
    named = "# T\n\nThe scan took 1.2 s (`bin/bench --only B6`).\n\n| a | b |\n| --- | --- |\n| x | 57% |\n"
    assert unnamed_figures("x.md", named) == []
    assert unnamed_figures("x.md", "Set `SGTOOLS_X=5 s` or `12/15` in code.\n") == []


def bench_groups() -> set[str]:
    source = (REPO / "bin" / "bench").read_text(encoding="utf-8")
    return {m.group(1) for m in re.finditer(r'^\s*"(\w+)(?::[^"]*)?": (?:bench_|lambda)', source, re.M)} | {
        m.group(1) for m in re.finditer(r'"(\w+): [^"]*": bench_', source)}


def script(name: str) -> Path | None:
    for candidate in (REPO / "bin" / name, REPO / "bin" / f"{name}.py"):
        if candidate.is_file():
            return candidate
    return None


SCRIPT_CALL = re.compile(r"(?<![/\w])bin[/.](\w+)(?:\.py)?((?:[ \t]+(?:-[-\w]+(?:[ =][\w.,/-]+)?|[a-z][\w-]*))*)")
TEST_NODE = re.compile(r"\b((?:tests|e2e)/\w+\.py)(?:::(\w+))?")


def missing_commands(name: str, text: str) -> list[str]:
    """The commands one doc names that the repository does not have."""
    groups, missing = bench_groups(), []
    for m in SCRIPT_CALL.finditer(text):
        path = script(m.group(1))
        if path is None:
            missing.append(f"{name}: bin/{m.group(1)}")
            continue
        source = path.read_text(encoding="utf-8")
        tokens = m.group(2).split()
        for i, token in enumerate(tokens):
            flag = token.split("=")[0]
            if flag.startswith("--") and f'"{flag}"' not in source:
                missing.append(f"{name}: {path.name} {flag}")
            if flag == "--only" and path.name == "bench" and i + 1 < len(tokens):
                missing += [f"{name}: bin/bench group {g}" for g in tokens[i + 1].split(",") if g not in groups]
        subcommand = tokens[0] if tokens and not tokens[0].startswith("-") else ""
        if path.name == "precision.py" and subcommand and f'add_parser("{subcommand}")' not in source:
            missing.append(f"{name}: precision.py {subcommand}")
    for m in TEST_NODE.finditer(text):
        path = REPO / m.group(1)
        if not path.is_file():
            missing.append(f"{name}: {m.group(1)}")
        elif m.group(2) and f"def {m.group(2)}(" not in path.read_text(encoding="utf-8"):
            missing.append(f"{name}: {m.group(0)}")
    return missing


def test_every_named_command_exists() -> None:
    assert {"B1", "B2", "B6", "B9", "Cost"} <= bench_groups()
    assert [m for name in DOCS for m in missing_commands(name, (REPO / name).read_text(encoding="utf-8"))] == []


def test_a_command_that_is_gone_is_caught() -> None:
    text = ("`bin/bench --only B2,B42`, `python -m bin.intent_eval --nope`, `python bin/precision.py judge`,\n"
            "`bin/gone.py`, tests/test_doc_figures.py::test_nothing_here, e2e/test_gone.py; `.venv/bin/pip`\n")
    assert missing_commands("x.md", text) == [
        "x.md: bin/bench group B42", "x.md: intent_eval.py --nope", "x.md: precision.py judge", "x.md: bin/gone",
        "x.md: tests/test_doc_figures.py::test_nothing_here", "x.md: e2e/test_gone.py"]
