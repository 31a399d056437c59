"""Fault catalogue, crash consistency: a multi-file write killed with SIGKILL at every step (every rename or
unlink of the sequence, counted in a child process) leaves the project entirely old or entirely new once the next
command starts (the journal of `sgtools/project/journal.py` is replayed by `Workspace`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sgtools.project import config as project
from sgtools.project.journal import JOURNAL_NAME
from sgtools.project.workspace import Workspace
from tests.faults import KILL_AT_STEP_CHILD, ForkServer, report

RULE_V1 = ("id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nmetadata: {fixSafety: safe}\n"
           "rule: {pattern: eval($X)}\nfix: safe_eval($X)\n")
RULE_V2 = RULE_V1.replace("message: no eval", "message: eval runs arbitrary code")
SNAPSHOT = "rule-tests/__snapshots__/no-eval-snapshot.yml"
SOURCES = {f"src/m{i}.py": f"a{i} = eval(x)\nb{i} = eval(y)\n" for i in range(3)}

CHILD = KILL_AT_STEP_CHILD + textwrap.dedent("""
    if scenario.endswith("@end"):  # killed once the write set is whole, just before its journal is removed
        from sgtools.project import journal
        journal.end = lambda ws: os.kill(os.getpid(), signal.SIGKILL)
        scenario = scenario[:-4]
    os.replace, os.rename, os.unlink = counted(os.replace), counted(os.rename), counted(os.unlink)
    if scenario == "rule":
        from sgtools.rules import store
        store.add_or_update_rule(ws, engine, "no-eval", sys.argv[4], overwrite=True,
                                 valid_examples=["safe_eval(x)"], invalid_examples=["eval(x)", "eval(y)"])
    elif scenario == "remove":
        from sgtools.rules import store
        store.remove_rule(ws, engine, "no-eval")
    elif scenario == "rewrite":
        from sgtools.edit import structural
        structural.rewrite_code(ws, engine, "eval($X)", "ev($X)", "python", apply=True)
    elif scenario == "fixes":
        from sgtools.workflows import apply_fixes as apply
        apply.apply_fixes(ws, engine, apply=True, include_unsafe=True)
    print(steps[0])
""")


def _project(root: Path) -> Workspace:
    root.mkdir(parents=True)
    ws = Workspace(root)
    project.initialize(ws)
    (root / "rules" / "no-eval.yml").write_text(RULE_V1)
    (root / "rule-tests" / "no-eval-test.yml").write_text("id: no-eval\nvalid: [safe_eval(x)]\ninvalid: [eval(x)]\n")
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return ws


def _state(root: Path) -> dict[str, bytes | None]:
    files = ["rules/no-eval.yml", "rule-tests/no-eval-test.yml", SNAPSHOT, *SOURCES]
    return {f: (root / f).read_bytes() if (root / f).is_file() else None for f in files}


# What CHILD imports, imported once by the fork server the catalogue's children are forked from (tests/faults.py).
PRELOAD = ["sgtools.engine.process", "sgtools.project.workspace", "sgtools.project.journal", "sgtools.rules.store",
           "sgtools.edit.structural", "sgtools.workflows.apply_fixes"]


def _run(root: Path, scenario: str, kill_at: int,
         children: ForkServer | None = None) -> subprocess.CompletedProcess[str]:
    if children is not None:
        return children.run(str(kill_at), str(root), scenario, RULE_V2, timeout=300)
    return subprocess.run([sys.executable, "-c", CHILD, str(kill_at), str(root), scenario, RULE_V2],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_catalogue_sigkill_at_every_step_of_every_multi_file_write(tmp_path: Path) -> None:
    failures: list[object] = []
    probes = 0
    children = ForkServer(CHILD, PRELOAD, tmp_path / "runs")
    for scenario in ("rule", "remove", "rewrite", "fixes"):
        ref = tmp_path / scenario / "ref"
        _project(ref)
        old = _state(ref)
        done = _run(ref, scenario, 10**9, children)
        assert done.returncode == 0, done.stderr
        steps = int(done.stdout.split()[-1])
        new = _state(ref)
        assert new != old and steps >= 2, (scenario, steps)
        for kill_at in range(1, steps + 1):
            root = tmp_path / scenario / f"k{kill_at}"
            _project(root)
            killed = _run(root, scenario, kill_at, children)
            probes += 1
            if killed.returncode not in (-9, 0):  # 0: this run took fewer steps (cache writes vary): it finished
                failures.append((scenario, kill_at, "failed", killed.returncode, killed.stderr[-300:]))
                continue
            Workspace(root)  # the next command starts: an interrupted set is finished here
            after = _state(root)
            if after not in (old, new):
                torn = sorted(f for f in after if after[f] != old[f])
                failures.append((scenario, kill_at, "torn", torn))
            if (root / JOURNAL_NAME).exists():
                failures.append((scenario, kill_at, "journal left behind"))
        print(f"\n{scenario}: {steps} steps, killed at each")
    children.close()
    report("crash consistency (SIGKILL at every step; torn states)", probes, failures)


def test_the_snapshot_is_written_with_the_rule_and_its_test(tmp_path: Path) -> None:
    """Issue 33.5: the snapshot `ast-grep test --update-all` makes joins the rule's write set. Killed when that set is
    whole (its journal not yet removed), the next command finds the rule, its test and its snapshot, and the
    project's own `ast-grep test` passes; before, the snapshot was written after the set, and was missing."""
    ws = _project(tmp_path / "proj")
    killed = _run(ws.root, "rule@end", 10**9)
    assert killed.returncode == -9, killed.stderr
    Workspace(ws.root)
    after = _state(ws.root)
    assert after["rules/no-eval.yml"] != RULE_V1.encode() and after[SNAPSHOT] is not None
    check = subprocess.run([str(Path(sys.executable).parent / "ast-grep"), "test"], cwd=ws.root,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_stale_journal_never_overwrites_a_file_edited_since(tmp_path: Path) -> None:
    ws = _project(tmp_path / "proj")
    target = ws.root / "src" / "m0.py"
    journal = {"version": 1, "files": [
        {"path": "src/m0.py", "old": "b2xk", "new": "bmV3"},  # "old" / "new", but the file holds neither
        {"path": "src/m1.py", "old": None, "new": "bmV3"}]}
    (ws.root / JOURNAL_NAME).write_text(json.dumps(journal))
    before = target.read_bytes()
    Workspace(ws.root)
    assert target.read_bytes() == before and (ws.root / "src" / "m1.py").read_bytes() != b"new"
    assert not (ws.root / JOURNAL_NAME).exists() and (ws.root / (JOURNAL_NAME + ".stale")).exists()


def test_the_journal_holds_every_file_before_the_first_rename(tmp_path: Path) -> None:
    ws = _project(tmp_path / "proj")
    killed = _run(ws.root, "rewrite", 2)  # step 1 writes the journal, step 2 would be the first source file
    assert killed.returncode == -9
    data = json.loads((ws.root / JOURNAL_NAME).read_text())
    assert sorted(e["path"] for e in data["files"]) == sorted(SOURCES)
    assert _state(ws.root)["src/m0.py"] == SOURCES["src/m0.py"].encode()  # nothing renamed yet
    assert os.path.exists(ws.root / JOURNAL_NAME)


def test_a_long_running_workspace_replays_before_its_next_write(tmp_path: Path) -> None:
    ws = _project(tmp_path / "proj")  # made before the crash, like a server that keeps running
    old = _state(tmp_path / "proj")
    killed = _run(ws.root, "rewrite", 3)  # journal written, one source file renamed, then SIGKILL
    assert killed.returncode == -9 and (ws.root / JOURNAL_NAME).exists()
    assert _state(ws.root) != old  # torn until someone replays it
    with ws.lock():  # its next write starts here
        assert not (ws.root / JOURNAL_NAME).exists()
    after = _state(ws.root)
    assert all(after[f] == SOURCES[f].replace("eval(", "ev(").encode() for f in SOURCES)
