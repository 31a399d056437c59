"""Fault catalogue, filesystem family: real faults (a tmpfs mounted read-only, full, or out of inodes; files where
directories belong and the reverse; symlink loops; rule directories outside the root) answered with the SPEC code
that says what to do (`io`, `bad-input`, `outside-workspace`, `config-missing`, `not-found`), never
`[engine-failed] ... report it`, and with nothing half-written.

Mounting needs root; without it the mount-based faults are skipped (the others still run)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from sgtools.core.settings import get_settings
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.server import app as server
from sgtools.server import runner
from sgtools.server.schemas import input_schemas
from sgtools.server.spec import App
from tests.faults import report

RULE = ("id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nmetadata: {fixSafety: safe}\n"
        "rule: {pattern: eval($X)}\nfix: safe_eval($X)\n")
NEW_RULE = "id: new-rule\nlanguage: python\nseverity: warning\nmessage: m\nrule: {pattern: print($X)}\n"
ANSWERS = ("[io] ", "[bad-input] ", "[outside-workspace] ", "[config-missing] ", "[not-found] ")

WRITES: list[tuple[str, dict[str, Any]]] = [
    ("add_or_update_rule", {"rule_id": "new-rule", "rule_yaml": NEW_RULE, "invalid_examples": ["print(1)"]}),
    ("remove_rule", {"rule_id": "no-eval"}),
    ("apply_fixes", {"apply": True, "include_unsafe": True}),
    ("find_code", {"pattern": "eval($X)", "rewrite": "ev($X)", "language": "python", "apply": True}),
    ("import_community_rule", {"rule_id": "python-no-eval", "overwrite": True}),
]
READS: list[tuple[str, dict[str, Any]]] = [
    ("list_rules", {}), ("scan_code", {}), ("scan_code", {"code": "eval(x)\n", "language": "python"}),
    ("list_rules", {"rule_id": "no-eval"}), ("find_code", {"pattern": "eval($X)", "language": "python"}),
    ("test_rule", {"rule_yaml": NEW_RULE, "code": "print(1)\n"}), ("server_info", {}),
    ("initialize_ast_grep", {}),
]


def call(ws: Workspace, name: str, args: dict[str, Any]) -> tuple[bool, str]:
    """One real tool call through the MCP runner: (is_error, text)."""
    app = App(ws=ws, engine=Engine(), settings=get_settings())
    schema = input_schemas(app.settings, server.TOOLS)[name]
    result = anyio.run(runner.run_tool, app, server.tool_specs()[name], schema, args)
    return bool(result.is_error), str(result.content[0].text)


def make_project(root: Path) -> Workspace:
    root.mkdir(parents=True)
    ws = Workspace(root)
    project.initialize(ws)
    (root / "rules" / "no-eval.yml").write_text(RULE)
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "a.py").write_text("x = eval(s)\n")
    (root / "src" / "b.py").write_text("y = eval(t)\n")
    return ws


def snapshot_tree(root: Path) -> dict[str, bytes]:
    """Every entry under root with its bytes (a symlink: its target), without following links."""
    out: dict[str, bytes] = {}
    for dirpath, dirs, files in os.walk(root):
        for name in [*files, *dirs]:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                out[rel] = b"-> " + os.fsencode(os.readlink(p))
            elif p.is_file():
                out[rel] = p.read_bytes()
            else:
                out[rel + "/"] = b""
    return out


def probe(ws: Workspace, ops: list[tuple[str, dict[str, Any]]], label: str, failures: list[Any],
          *, writes_refused: bool, refill: Callable[[], None] | None = None) -> int:
    """Each op must succeed or answer with a code that tells what to do; a refused write changes nothing."""
    for name, args in ops:
        if refill is not None:
            refill()  # what an earlier op freed (a removed rule) is used up again
        before = snapshot_tree(ws.root)
        is_error, text = call(ws, name, args)
        if is_error and not text.startswith(ANSWERS):
            failures.append((label, name, text[:240]))
        elif writes_refused and not is_error and (name, args) in WRITES and name not in ("apply_fixes", "remove_rule"):
            failures.append((label, name, "a write succeeded on a file system that refuses writes"))
        if is_error and snapshot_tree(ws.root) != before:
            failures.append((label, name, "refused, yet the project changed"))
    return len(ops)


# ---- real mounts -----------------------------------------------------------------------------------------------


@contextlib.contextmanager
def tmpfs(base: Path, options: str) -> Iterator[Path]:
    mnt = base / f"mnt-{uuid.uuid4().hex[:8]}"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mnt)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def fill(mnt: Path, *, inodes: bool) -> None:
    """Use up the space (one big file) or the inodes (many empty files) of a mount, for real."""
    i = 0
    try:
        if inodes:
            while True:
                (mnt / f"inode-{uuid.uuid4().hex}").touch()
                i += 1
        with (mnt / f"filler-{uuid.uuid4().hex}").open("wb") as fh:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
    except OSError:
        return


@pytest.mark.slow
def test_catalogue_read_only_full_disk_and_no_inodes(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    failures: list[Any] = []
    probes = 0
    with tmpfs(tmp_path, "size=8m") as mnt:
        ws = make_project(mnt / "proj")
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        probes += probe(ws, WRITES + READS, "read-only", failures, writes_refused=True)
        _, text = call(ws, "add_or_update_rule", dict(WRITES[0][1]))
        if "read-only" not in text:
            failures.append(("read-only", "the message does not say read-only", text[:200]))
    for label, options, inodes in (("full disk", "size=1m", False), ("no inodes", "size=8m,nr_inodes=40", True)):
        with tmpfs(tmp_path, options) as mnt:
            ws = make_project(mnt / "proj")
            probes += probe(ws, WRITES + READS, label, failures, writes_refused=True,
                            refill=lambda m=mnt, i=inodes: fill(m, inodes=i))  # type: ignore[misc]
    report("filesystem faults: read-only, full disk, no inodes (real tmpfs)", probes, failures)


# ---- wrong file types, loops, places outside the root ------------------------------------------------------------


def _rules_is_a_file(root: Path) -> None:
    shutil.rmtree(root / "rules")
    (root / "rules").write_text("not a directory\n")


def _tests_is_a_file(root: Path) -> None:
    shutil.rmtree(root / "rule-tests")
    (root / "rule-tests").write_text("not a directory\n")


def _utils_is_a_file(root: Path) -> None:
    shutil.rmtree(root / "utils")
    (root / "utils").write_text("not a directory\n")


def _config_is_a_directory(root: Path) -> None:
    (root / "sgconfig.yml").unlink()
    (root / "sgconfig.yml").mkdir()


def _rule_file_is_a_directory(root: Path) -> None:
    (root / "rules" / "no-eval.yml").unlink()
    (root / "rules" / "no-eval.yml").mkdir()


def _source_is_a_directory_link_loop(root: Path) -> None:
    os.symlink("loop", root / "src" / "loop")
    os.symlink("b-link", root / "src" / "a-link")
    os.symlink("a-link", root / "src" / "b-link")


def _rules_outside_root(root: Path) -> None:
    outside = root.parent / "outside-rules"
    outside.mkdir(exist_ok=True)
    (outside / "x.yml").write_text(NEW_RULE)
    cfg = root / "sgconfig.yml"
    cfg.write_text(cfg.read_text().replace("- rules", "- ../outside-rules"))


def _rules_link_outside_root(root: Path) -> None:
    outside = root.parent / "outside-link-target"
    outside.mkdir(exist_ok=True)
    shutil.rmtree(root / "rules")
    os.symlink(outside, root / "rules")


def _rules_unreadable_dir_loop(root: Path) -> None:
    shutil.rmtree(root / "rules")
    os.symlink("rules", root / "rules")


FAULTS: dict[str, Callable[[Path], None]] = {
    "rules/ is a file": _rules_is_a_file,
    "rule-tests/ is a file": _tests_is_a_file,
    "utils/ is a file": _utils_is_a_file,
    "sgconfig.yml is a directory": _config_is_a_directory,
    "a rule file is a directory": _rule_file_is_a_directory,
    "symlink loops among the sources": _source_is_a_directory_link_loop,
    "rule directory outside the root": _rules_outside_root,
    "rules/ a symlink leaving the root": _rules_link_outside_root,
    "rules/ a symlink loop": _rules_unreadable_dir_loop,
}
LOOP_READS: list[tuple[str, dict[str, Any]]] = [
    ("scan_code", {"paths": ["src/loop"]}), ("scan_code", {"paths": ["src/a-link"]}),
    ("find_code", {"pattern": "eval($X)", "language": "python", "paths": ["src/loop"]}),
    ("scan_code", {"code": "eval(x)\n", "path": "src/loop/x.py"}),
]


@pytest.mark.slow
def test_catalogue_wrong_file_types_loops_and_outside_dirs(tmp_path: Path) -> None:
    failures: list[Any] = []
    probes = 0
    for i, (label, make_fault) in enumerate(FAULTS.items()):
        ws = make_project(tmp_path / f"p{i}" / "proj")
        make_fault(ws.root)
        probes += probe(ws, WRITES + READS + LOOP_READS, label, failures, writes_refused=False)
    report("filesystem faults: wrong file types, symlink loops, dirs outside the root", probes, failures)


def test_cli_answers_a_filesystem_fault_with_io_and_exit_2(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from sgtools.cli import main

    ws = make_project(tmp_path / "proj")
    _config_is_a_directory(ws.root)
    assert main(["scan", "--root", str(ws.root)]) == 2
    err = capsys.readouterr().err
    assert "[io] " in err and "directory" in err and "internal error" not in err
    ws2 = make_project(tmp_path / "proj2")
    _rules_is_a_file(ws2.root)
    assert main(["rule", "list", "--root", str(ws2.root)]) == 2
    assert "[io] rules (named by `ruleDirs`" in capsys.readouterr().err
