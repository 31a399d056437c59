"""Large-tree paths of `sgtools scan`: engine output parsed while the engine still runs, and per-finding work
done once per file or per language instead (a dense tree has tens of thousands of findings). Counts, not
stopwatches: the timings live in bin/bench."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sgtools.cli import main
from sgtools.core.errors import EngineFailed
from sgtools.engine.process import StreamParser
from sgtools.engine.spawn import Advice, spawn
from sgtools.scan import baseline, testcode
from sgtools.scan.signal import Signal

SAMPLE = Path(__file__).resolve().parent.parent / "e2e" / "sample_repo"


def test_output_is_handed_over_while_the_process_still_runs(tmp_path: Path) -> None:
    """The child prints one line, then waits until the reader has seen it: it only finishes if stdout reaches
    `on_stdout` while it runs (collected at the end, the child would wait out its own deadline and say so)."""
    seen = tmp_path / "seen"
    child = ("import os, sys, time\nprint('first', flush=True)\nend = time.time() + 10\n"
             f"while not os.path.exists({str(seen)!r}) and time.time() < end:\n    time.sleep(0.01)\n"
             f"print('second' if os.path.exists({str(seen)!r}) else 'late')\n")
    chunks: list[bytes] = []

    def on_stdout(chunk: bytes) -> None:
        chunks.append(chunk)
        seen.touch()

    result = spawn([sys.executable, "-c", child], cwd=tmp_path, timeout=30, max_output=1 << 20,
                   advice=Advice("", "", ""), on_stdout=on_stdout)
    assert result.stdout == b"first\nsecond\n" and b"".join(chunks) == result.stdout


def test_stream_parser_joins_lines_split_across_chunks() -> None:
    line = b'{"ruleId": "a", "text": "\xc3\xa9"}\n'
    parser = StreamParser()
    for i in range(0, len(line * 3), 5):  # cut inside lines and inside a multi-byte character
        parser.feed((line * 3)[i:i + 5])
    assert parser.finish() == [{"ruleId": "a", "text": "é"}] * 3
    bad = StreamParser()
    bad.feed(b'{"ruleId": "a"}\nnot json\n{"ruleId": "b"}')
    with pytest.raises(EngineFailed, match="not JSON"):
        bad.finish()


def test_test_paths_are_matched_once_per_file(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str | None] = []
    real = testcode.is_test_path

    def counting(path: str | None, patterns: Any = testcode.DEFAULT_TEST_PATHS) -> bool:
        calls.append(path)
        return real(path, patterns)

    monkeypatch.setattr(testcode, "is_test_path", counting)
    raw = [{"file": f, "ruleId": "r", "language": "Python", "text": "x",
            "range": {"byteOffset": {"start": i, "end": i + 1}, "start": {"line": 0, "column": i},
                      "end": {"line": 0, "column": i + 1}}}
           for f in ("src/a.py", "tests/test_a.py") for i in range(50)]
    kept = Signal(skip_generated=False, honour_equivalents=False).refine(raw, {}, lambda name: "x" * 60)
    assert len(kept) == 100 and sum(bool(m.get("inTest")) for m in kept) == 50
    assert sorted(calls) == ["src/a.py", "tests/test_a.py"]


@pytest.mark.parametrize(("fmt", "hashed"), [("text", False), ("github", False), ("json", True)])
def test_only_formats_that_print_fingerprints_compute_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           fmt: str, hashed: bool) -> None:
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    monkeypatch.chdir(root)
    calls = []
    real = baseline._digest
    monkeypatch.setattr(baseline, "_digest", lambda *a: calls.append(a) or real(*a))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["scan", "--format", fmt]) in (0, 1)
    assert (len(calls) > 0) is hashed and ("fingerprint" in out.getvalue()) is hashed


_SPAWNS = """
import sys
spawned = []
sys.addaudithook(lambda event, args: spawned.append(args[1]) if event == "subprocess.Popen" else None)
from sgtools.cli import main
try:
    main(["scan", "python/calc.py", "--format", "json"])
finally:
    print("SPAWNED", len(spawned), spawned, file=sys.stderr)
"""


@pytest.mark.slow
def test_one_file_scan_spawns_only_the_scan(tmp_path: Path) -> None:
    """The second CLI run of a one-file scan starts one process, the scan itself: the engine's version (part of
    the analysis cache key) is remembered by the binary's stat, not asked with `ast-grep --version` each run."""
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", _SPAWNS], cwd=root, env=env, capture_output=True, text=True,
                           timeout=120) for _ in range(2)]
    assert '"issues"' in runs[1].stdout, runs[1].stderr[-2000:]
    line = runs[1].stderr.rsplit("SPAWNED", 1)[1]
    assert line.split()[0] == "1" and "--version" not in line, line


def test_diagnostics_work_out_each_file_name_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from sgtools.scan import diagnostics

    calls: list[str | None] = []
    real = diagnostics.normalize_file
    monkeypatch.setattr(diagnostics, "normalize_file", lambda name: calls.append(name) or real(name))
    raw = [{"file": f, "ruleId": "r", "severity": "hint", "message": "m", "text": "x",
            "range": {"byteOffset": {"start": i, "end": i + 1}, "start": {"line": 0, "column": i},
                      "end": {"line": 0, "column": i + 1}},
            "labels": [{"style": "primary", "text": "x", "range": {
                "byteOffset": {"start": i, "end": i + 1}, "start": {"line": 0, "column": i},
                "end": {"line": 0, "column": i + 1}}}]}
           for f in ("./src/a.py", "src\\b.py") for i in range(40)]
    diags = diagnostics.to_diagnostics(raw, text_by_file={}, rules_by_id={})
    assert [d["file"] for d in diags[::40]] == ["src/a.py", "src/b.py"] and all(d["labels"] == [] for d in diags)
    assert calls == ["./src/a.py", "src\\b.py"]


def test_schema_constrains_string_values_only_by_shape_keeping_keywords() -> None:
    """The cached schema verdict replaces string values by a placeholder (rules/schema._shape_key): sound only
    while the schema constrains strings by type, `minLength: 1` and enums. A new keyword here needs a new key."""
    from sgtools.rules.schema import SCHEMA_PATH

    seen: list[tuple[str, Any]] = []

    def walk(node: Any, parent: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("pattern", "format", "const", "maxLength", "minLength") and parent not in (
                        "properties", "$defs"):
                    seen.append((key, value))
                walk(value, key)
        elif isinstance(node, list):
            for value in node:
                walk(value, parent)

    walk(json.loads(SCHEMA_PATH.read_text()), "")
    assert {k for k, _ in seen} <= {"minLength", "pattern"}
    assert all(v == 1 for k, v in seen if k == "minLength")
    assert [v for k, v in seen if k == "pattern"] == ["^[^(),=]+$"]  # propertyNames of utils: keys are kept


_SCHEMA_PROBE = """
import json, sys
from sgtools.rules.schema import schema_problems
rule = json.loads(sys.argv[1])
print(json.dumps([schema_problems(rule), "jsonschema" in sys.modules]))
"""


def _schema_verdict(tmp_path: Path, rule: dict[str, Any]) -> tuple[list[str], bool]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", _SCHEMA_PROBE, json.dumps(rule)], env=env, capture_output=True,
                          text=True, timeout=60, check=True)
    problems, imported = json.loads(proc.stdout)
    return problems, imported


def test_a_rule_of_a_known_clean_shape_is_checked_without_jsonschema(tmp_path: Path) -> None:
    def rule(i: int, **over: Any) -> dict[str, Any]:
        return {"id": f"r{i}", "language": "python", "severity": "warning", "message": f"no f{i}",
                "rule": {"pattern": f"f{i}($$$A)", "not": {"inside": {"kind": "with_statement", "stopBy": "end"}}},
                **over}

    assert _schema_verdict(tmp_path, rule(1)) == ([], True)  # checked, and remembered as a clean shape
    assert _schema_verdict(tmp_path, rule(2)) == ([], False)  # other strings, same shape: no import
    # What the placeholder must not hide: enums, empty strings where one character is needed, types.
    for bad in (rule(3, severity="bogus"), rule(4, id=""), rule(5, message=5),
                rule(6, rule={"pattern": "f($A)", "not": {"inside": {"kind": "x", "stopBy": "nowhere"}}})):
        problems, imported = _schema_verdict(tmp_path, bad)
        assert problems and imported, bad


def test_stream_parser_joins_a_long_line_once() -> None:
    """A match as long as a minified bundle arrives in many chunks without a newline: its pieces are joined once
    when the line ends, not re-copied on every chunk (quadratic in the line's length)."""
    text = "x" * 200_000
    line = json.dumps({"ruleId": "a", "text": text}).encode() + b"\n"
    parser = StreamParser()
    chunks = [line[i:i + 1000] for i in range(0, len(line), 1000)]
    for chunk in chunks[:-1]:
        parser.feed(chunk)
        assert parser.items == []
    assert len(parser._carry) == len(chunks) - 1  # kept as pieces, none joined yet
    parser.feed(chunks[-1])
    assert parser.finish() == [{"ruleId": "a", "text": text}]


def test_scan_runs_without_the_cycle_collector_and_restores_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dense tree's findings are millions of small containers; the collector, triggered by their allocation,
    cost a third of a scan's CPU. The scan pauses it and turns it back on for an in-process caller."""
    import gc

    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    monkeypatch.chdir(root)
    runs: list[str] = []
    paused = {("cli/scan.py", "_run"), ("cli/__init__.py", "_parser_of")}  # the stretches run with it paused

    def heard(phase: str, info: dict[str, int]) -> None:
        """A collection inside a paused stretch is the failure. The one that may follow `gc.enable()` at its
        end is the collector catching up, and whether it comes depends on what the process allocated before
        (it came when this test ran alone, not in the suite): not counted."""
        frame = sys._getframe(1)
        while phase == "start" and frame is not None:
            where = (Path(frame.f_code.co_filename).parent.name + "/" + Path(frame.f_code.co_filename).name,
                     frame.f_code.co_name)
            if where in paused:
                runs.append(f"{where} generation {info['generation']}")
            frame = frame.f_back

    gc.callbacks.append(heard)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["scan", "--format", "json"]) in (0, 1)
    finally:
        gc.callbacks.remove(heard)
    assert runs == [] and gc.isenabled()


class _CountingText(str):
    splits = 0

    def splitlines(self, keepends: bool = False) -> list[str]:
        type(self).splits += 1
        return super().splitlines(keepends)


def test_hand_written_files_are_told_from_minified_ones_without_splitting_them() -> None:
    """Each matched file of a sparse tree (hundreds) is checked for minified code; hand-written code has many
    newlines per character, which a count at C speed shows."""
    from sgtools.scan import generated

    text = _CountingText("def f(x):\n    return x\n" * 5000)
    assert generated.why_generated("src/a.py", text) is None and _CountingText.splits == 0
    def x(n: int) -> str:  # n characters of dense code, as in real bundles
        return ("a.b=c(d,[e]);" * (n // 13 + 1))[:n]

    prose = "// " + "a comment that explains the code at length, " * 30
    for sample, why in [(x(1200) + "\n" + x(300), "minified"), (x(1200) + "\r\n" * 3, "minified"),
                        (x(1000) + "\n" * 5, "minified"), (x(1000) + "\n" * 6, None),
                        (x(250) + "\u2028" + x(2000), "minified"), (x(999) + "\n", None),
                        (x(150) + "\n" + x(1000), "minified"), ("", None), ("\n" * 10, None),
                        (x(1000) + "\r" * 6, None), (x(1500) + "\r" * 6, "minified"),
                        ("x" * 1200 + "\n" + "y" * 300, None), (prose + "\neval(x)\n", None)]:
        lines = sample.splitlines() or [""]
        wide = "".join(ln for ln in lines if len(ln) >= 200)
        slow = (max(len(ln) for ln in lines) >= 1000 and len(sample) / len(lines) >= 200  # the definition
                and len(wide) >= 0.5 * len(sample) and sum(map(wide.count, ";,(){}[]=:")) >= 0.1 * len(wide)
                and wide.count(" ") <= 0.06 * len(wide))
        assert (generated.why_generated("a.js", sample) == "minified") is slow and (why == "minified") is slow


def test_a_path_scan_reads_each_matched_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sgtools.engine.process import Engine
    from sgtools.project.workspace import Workspace
    from sgtools.scan import paths

    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    reads: list[str] = []
    real = Workspace.read_bytes  # every file a scan reads goes through the confined read (project/confine.py)

    def counted(self: Workspace, path: str, *a: Any, **k: Any) -> bytes:
        reads.append(str(self.root / path))
        return real(self, path, *a, **k)

    monkeypatch.setattr(Workspace, "read_bytes", counted)
    result = paths.scan_path(Workspace(root), Engine(), paths.PathScan(verify_fixits=False))
    matched = {d["file"] for d in result["issues"]}
    assert matched and len(reads) == len(set(reads)) and {str(root / f) for f in matched} <= set(reads)


def test_a_rules_equivalent_suppressions_are_read_once_per_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    from sgtools.scan import suppress

    calls: list[object] = []
    real = suppress.equivalents
    monkeypatch.setattr(suppress, "equivalents", lambda rule: calls.append(rule) or real(rule))
    raw = [{"file": "src/a.py", "ruleId": rid, "language": "Python", "text": "x",
            "range": {"byteOffset": {"start": i, "end": i + 1}, "start": {"line": 0, "column": i},
                      "end": {"line": 0, "column": i + 1}}} for rid in ("r1", "r2") for i in range(40)]
    kept = Signal(skip_generated=False).refine(raw, {}, lambda name: "x" * 60)
    assert len(kept) == 80 and len(calls) == 2
