"""The persistent parse/check cache: content-keyed, shared by fresh processes, never a source of failure."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sgtools.core import yamlio
from sgtools.core.cache import JsonCache, StatMemo, cache_root, config_root, json_safe


def test_entries_survive_a_restart_and_are_keyed_by_content() -> None:
    first = JsonCache("t")
    first.put("docs", "k1", [{"id": "a"}])
    fresh = JsonCache("t")  # a new process: nothing in memory
    assert fresh.get("docs", "k1") == [{"id": "a"}]
    assert not fresh.has("docs", "k2")
    odd_key = "/path/with:colons and spaces"
    fresh.put("checks", odd_key, None)
    assert JsonCache("t").has("checks", odd_key)


def test_corrupt_entry_is_a_miss_not_an_error() -> None:
    cache = JsonCache("t")
    cache.put("docs", "k", 1)
    path = next((cache_root() / "t" / "docs").glob("*.json"))
    path.write_text("{not json")
    assert not JsonCache("t").has("docs", "k")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through directory permissions")
def test_unwritable_cache_is_not_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    monkeypatch.setenv("XDG_CACHE_HOME", str(ro))
    cache = JsonCache("t")
    cache.put("docs", "k", 1)
    assert cache.get("docs", "k") == 1  # still remembered in memory


def test_yaml_parse_is_reused_by_a_fresh_process_and_never_stale(tmp_path: Path) -> None:
    rule = b"id: r\nlanguage: python\nrule: {pattern: print($A)}\n"
    assert yamlio.load_all_cached(rule)[0]["id"] == "r"
    probe = ("import sys, sgtools.core.yamlio as y; d = y.load_all_cached(sys.stdin.buffer.read()); "
             "print(d[0]['id'], 'ruamel.yaml' in sys.modules)")
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", probe], input=rule, capture_output=True, env=env, check=True)
    assert out.stdout.decode().split() == ["r", "False"]  # served from the cache: the parser never loaded
    changed = rule.replace(b"id: r", b"id: s")
    out = subprocess.run([sys.executable, "-c", probe], input=changed, capture_output=True, env=env, check=True)
    assert out.stdout.decode().split() == ["s", "True"]


def test_json_safe() -> None:
    assert json_safe([{"a": [1, "x", None]}])
    assert not json_safe({1: "int key"})


def test_misses_are_remembered_for_their_time_and_ended_by_a_put_in_this_process() -> None:
    import time

    server = JsonCache("t", miss_ttl=3600.0)
    assert not server.has("latest", "k")
    JsonCache("t").put("latest", "k", ["other process"])  # another process analysed it meanwhile
    assert not server.has("latest", "k")  # the miss is remembered: no file read per call
    server.put("latest", "k", ["this process"])
    assert server.get("latest", "k") == ["this process"]
    short = JsonCache("t", miss_ttl=0.05)
    assert not short.has("latest", "k2")
    JsonCache("t").put("latest", "k2", 2)
    time.sleep(0.1)
    assert short.get("latest", "k2") == 2  # bounded staleness: another process's write is seen once it expires
    assert not JsonCache("t").has("latest", "k3") and JsonCache("t").has("latest", "k2")  # default: no memory


@pytest.mark.parametrize(("xdg", "home"), [("/tmp/xdg", "/root"), ("/a/b/", "/h/"), ("", "/home/u"),
                                           (None, "/home/u"), (None, "/"), ("relative", "/home/u"),
                                           (None, "relative"), (None, None)])
def test_user_dirs_are_where_platformdirs_puts_them(xdg: str | None, home: str | None,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """cache_root and config_root answer the common Linux cases without importing platformdirs: the same
    directories."""
    import platformdirs

    for name, value in (("XDG_CACHE_HOME", xdg), ("XDG_CONFIG_HOME", xdg), ("HOME", home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert cache_root() == Path(platformdirs.user_cache_path("context-sherpa"))
    assert config_root() == Path(platformdirs.user_config_path("context-sherpa"))


def test_the_built_in_digests_are_hashlibs() -> None:
    """core/digest.py takes sha256 and blake2b from CPython's built-in modules (no OpenSSL import): same bytes."""
    import hashlib

    from sgtools.core.digest import blake2b, sha256

    for data in (b"", b"rule: {pattern: f($A)}\n", bytes(range(256)) * 300):
        assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        assert blake2b(data, digest_size=20).digest() == hashlib.blake2b(data, digest_size=20).digest()


@pytest.mark.slow
def test_analyser_source_digest_is_remembered_by_stat_and_follows_every_edit(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The analyser's code version (part of every cached analysis key) is a digest of its sources' contents; a
    fresh process answers it from the stat memo without reading them, and an edit (even one that keeps the size)
    gives a new digest at once."""
    from sgtools.rules import analysis

    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text("x = 1\n")
    (src / "b.py").write_text("y = 2\n")
    (src / "notes.txt").write_text("not source")
    for f in src.iterdir():
        os.utime(f, (time.time() - 60,) * 2)
    if time.time_ns() - max(f.stat().st_ctime_ns for f in src.iterdir()) < 2_000_000_000:
        time.sleep(2.1)  # ctime cannot be set back: a file changed this recently is never remembered
    first = analysis.sources_digest(src)
    read: list[str] = []
    real_read = Path.read_bytes

    def counted(self: Path) -> bytes:
        read.append(self.name)
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    monkeypatch.setattr(analysis, "_sources", StatMemo("analysis", "source-digests-v1"))  # as a new process
    assert analysis.sources_digest(src) == first
    assert read == []
    (src / "notes.txt").write_text("changed, not source")
    assert analysis.sources_digest(src) == first
    (src / "b.py").write_text("y = 3\n")  # same size
    changed = analysis.sources_digest(src)
    assert changed != first and read == ["b.py"]
    (src / "b.py").write_text("y = 2\n")
    assert analysis.sources_digest(src) == first
