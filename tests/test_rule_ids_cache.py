"""Rule ids across CLI calls: a store of 200 rules is not re-read and re-parsed by every `sgtools rule add`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sgtools.core.cache import StatMemo
from sgtools.rules.schema import SCHEMA_PATH

RULES = 200
# Runs the CLI in a fresh process and prints how many files under rules/ and rule-tests/ Python opened.
_COUNTING = """
import os, sys
opened = []
memo_reads = []
digest_reads = []
root = os.getcwd()
def hook(event, args):
    if event == "open" and isinstance(args[0], str):
        name = os.path.relpath(os.path.abspath(args[0]), root)
        if name.startswith(("rules" + os.sep, "rule-tests" + os.sep)):
            opened.append(name)
        elif os.sep + "rule-ids-v2" + os.sep in args[0] and not (len(args) > 1 and "w" in str(args[1])):
            memo_reads.append(args[0])
        elif os.sep + "rule-ids-by-content-" in args[0] and args[0].endswith(".json") and not (
                len(args) > 2 and isinstance(args[2], int) and args[2] & (os.O_WRONLY | os.O_RDWR)):
            digest_reads.append(args[0])  # not an atomic write's directory or temp file
sys.addaudithook(hook)
from sgtools.cli import main
try:
    code = main(sys.argv[1:])
finally:
    print("MEMO-READS", len(memo_reads), file=sys.stderr)
    print("DIGEST-READS", len(digest_reads), file=sys.stderr)
    print("OPENED", len(opened), *sorted(set(opened)), file=sys.stderr)
    print("MODULES", *sorted(sys.modules), file=sys.stderr)
"""
# What a `rule add` whose checks the caches answer never imports (each loaded where it is used): the analyser's
# thread pools with `logging` (~20 million instructions), the journal's logger, the glob matcher (a rule without
# `files`/`ignores` globs), and `dataclasses` (with inspect, ast and dis ~40 million, and ~2 million per class: the
# records on this path are plain classes).
NOT_IMPORTED = ("concurrent.futures", "logging", "sgtools.core.globs", "dataclasses", "inspect", "ast")


def _project(root: Path) -> None:
    (root / "rules").mkdir(parents=True)
    (root / "rule-tests").mkdir()
    (root / "sgconfig.yml").write_text("ruleDirs:\n  - rules\ntestConfigs:\n  - testDir: rule-tests\n")
    for i in range(RULES):
        (root / "rules" / f"r{i:03}.yml").write_text(
            f"id: r{i:03}\nlanguage: Python\nseverity: warning\nmessage: call f{i}\nrule:\n  pattern: f{i}($$$A)\n")
        (root / "rule-tests" / f"r{i:03}-test.yml").write_text(
            f"id: r{i:03}\nvalid:\n  - g{i}()\ninvalid:\n  - f{i}(1)\n")
    old = time.time() - 3600  # a checked-out project: its files have settled
    for path in [*(root / "rules").iterdir(), *(root / "rule-tests").iterdir()]:
        os.utime(path, (old, old))
    time.sleep(2.1)  # the change time cannot be set back, and counts too


def _add(root: Path, cache: Path, rule_id: str) -> tuple[int, str]:
    rule = root.parent / f"{rule_id}.yml"
    rule.write_text(f"id: {rule_id}\nlanguage: Python\nseverity: warning\nmessage: no h\nrule:\n  pattern: h($$$A)\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    proc = subprocess.run([sys.executable, "-c", _COUNTING, "rule", "add", rule_id, "--file", str(rule),
                           "--invalid", "h(1)", "--valid", "g()", "--root", str(root)],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return int(proc.stderr.rsplit("OPENED", 1)[1].split()[0]), proc.stderr


@pytest.mark.slow
def test_second_cli_call_reads_no_settled_rule_or_test_file(tmp_path: Path) -> None:
    root, cache = tmp_path / "project", tmp_path / "cache"
    _project(root)
    first, _ = _add(root, cache, "first-new")
    assert first >= 2 * RULES  # the first call reads every rule and test file once
    second, err = _add(root, cache, "second-new")
    # Only the files the first call wrote (not yet settled, so read again) and the ones written now.
    assert second < 10, err[-3000:]
    # The remembered ids of the rules/ and rule-tests/ directories: one cache file each, not one per rule file
    # (read again to merge, when a file the first call wrote has settled since and is remembered now).
    assert int(err.rsplit("MEMO-READS", 1)[1].split()[0]) <= 4, err[-3000:]
    # Files too recent for that memo are looked up by their digest instead: one small read each, no YAML parse.
    assert int(err.rsplit("DIGEST-READS", 1)[1].split()[0]) <= second, err[-3000:]
    loaded = set(err.rsplit("MODULES", 1)[1].split())
    assert [m for m in NOT_IMPORTED if m in loaded] == []


@pytest.mark.slow
def test_an_edited_rule_is_read_again(tmp_path: Path) -> None:
    root, cache = tmp_path / "project", tmp_path / "cache"
    _project(root)
    _add(root, cache, "first-new")
    # r007 now defines the id the next call adds: the cache must not hide it (the add is an update of r007).
    (root / "rules" / "r007.yml").write_text(
        "id: dup\nlanguage: Python\nseverity: warning\nmessage: m\nrule:\n  pattern: f7($$$A)\n")
    os.utime(root / "rules" / "r007.yml", (time.time() - 3600,) * 2)  # even with an old mtime
    _add(root, cache, "dup")
    assert "pattern: h($$$A)" in (root / "rules" / "r007.yml").read_text()  # updated in place, not duplicated
    assert not (root / "rules" / "dup.yml").exists()


@pytest.mark.slow
def test_stat_memo_remembers_only_settled_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    memo = StatMemo("test-memo", "t")
    path = tmp_path / "f.yml"
    path.write_text("a")
    memo.put("k", path, path.stat(), ["fresh"])
    assert memo.get("k", path, path.stat()) is StatMemo.missing  # changed just now: may change again unseen
    os.utime(path, (time.time() - 60,) * 2)
    st = path.stat()
    if time.time_ns() - st.st_ctime_ns < 2_000_000_000:  # ctime cannot be set back: wait it out
        time.sleep(2.1)
        st = path.stat()
    memo.put("k", path, st, ["settled"])
    assert StatMemo("test-memo", "t").get("k", path, st) is StatMemo.missing  # not written before flush
    memo.flush()
    assert StatMemo("test-memo", "t").get("k", path, st) == ["settled"]  # a new process reads it from disk
    path.write_text("b")
    assert memo.get("k", path, path.stat()) is StatMemo.missing


def test_bundled_rule_schema_is_a_valid_schema() -> None:
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def test_a_recent_files_ids_come_from_its_digest_in_a_new_process_and_an_edit_is_seen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file too recent for the stat memo (the previous `rule add` just wrote it) is not parsed again by the next
    process when its bytes are unchanged; an in-place edit of the same size is parsed and seen."""
    from sgtools.core.cache import JsonCache
    from sgtools.rules import locate

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    rule = tmp_path / "rules" / "a.yml"
    rule.parent.mkdir()
    rule.write_text("id: one\nlanguage: Python\nrule:\n  pattern: f($A)\n")
    assert locate.file_ids(rule) == ["one"]
    parse = locate._rule_ids_of

    def restart() -> None:  # what a new process starts from: nothing in memory, the cache directory on disk
        monkeypatch.setattr(locate, "_ids_cache", {})
        monkeypatch.setattr(locate, "_ids_by_digest", JsonCache("rule-ids-by-content-v1"))
        monkeypatch.setattr(locate, "_ids_on_disk", StatMemo("rule-ids-v2", "ids"))

    def no_parse(path: Path, text: str) -> list[str] | None:
        raise AssertionError(f"{path} was parsed again")

    restart()
    monkeypatch.setattr(locate, "_rule_ids_of", no_parse)
    assert locate.file_ids(rule) == ["one"]
    with rule.open("r+") as fh:  # same inode, same size, within the same second
        fh.write("id: two")
    restart()
    monkeypatch.setattr(locate, "_rule_ids_of", parse)
    assert locate.file_ids(rule) == ["two"]
