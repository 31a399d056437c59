"""Settings: every SGTOOLS_* value is checked against its type and bounds, and a bad one stops the CLI and the MCP
server at start-up with one `[bad-input]` line and exit 2 (never a traceback, never exit 1, which means findings)."""

from __future__ import annotations

import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from sgtools.core import settings as settings_mod
from sgtools.core.errors import BadInput
from sgtools.core.settings import MAX_ARG_STRLEN, Settings, bounds, env_name, get_settings, requested_results

FIELDS = list(Settings._fields)
FLOATS = [name for name, kind in typing.get_type_hints(Settings).items() if kind is float]
INTS = [name for name in FIELDS if name not in FLOATS and not bounds(name).zero_ok]
SWITCHES = [name for name in FIELDS if name not in FLOATS and bounds(name).zero_ok]  # 0 off, 1 on


@pytest.mark.parametrize("name", SWITCHES)
def test_a_switch_is_0_or_1(name: str) -> None:
    assert {getattr(Settings.from_env({env_name(name): v}), name) for v in ("0", "1")} == {0, 1}
    for raw in ("2", "yes", "0.5"):
        with pytest.raises(BadInput, match=env_name(name)):
            Settings.from_env({env_name(name): raw})


def test_defaults_are_valid_and_overrides_are_read() -> None:
    assert Settings.from_env({}) == Settings()
    s = Settings.from_env({"SGTOOLS_ENGINE_TIMEOUT": "2.5", "SGTOOLS_MAX_CODE_BYTES": " 10 ", "OTHER": "x"})
    assert s.engine_timeout == 2.5 and s.max_code_bytes == 10
    assert isinstance(s.max_code_bytes, int) and isinstance(s.engine_timeout, float)


def test_the_documented_message_for_a_timeout_that_is_not_a_number() -> None:
    with pytest.raises(BadInput) as err:
        Settings.from_env({"SGTOOLS_ENGINE_TIMEOUT": "abc"})
    assert err.value.render().startswith(
        "[bad-input] SGTOOLS_ENGINE_TIMEOUT must be a positive number of seconds, got 'abc'")
    assert "unset" in err.value.message  # the next step


@pytest.mark.parametrize("name", FIELDS)
@pytest.mark.parametrize("raw", ["abc", "", "-5", "0x10", "true"])
def test_every_setting_refuses_text_and_negatives(name: str, raw: str) -> None:
    with pytest.raises(BadInput, match=f"^{env_name(name)} must be .*got {raw!r}"):
        Settings.from_env({env_name(name): raw})


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("raw", ["nan", "inf", "-inf", "1e400"])
def test_a_timeout_must_be_finite(name: str, raw: str) -> None:
    with pytest.raises(BadInput, match=env_name(name)):
        Settings.from_env({env_name(name): raw})


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("raw", ["1.5", "1e3", "0"])
def test_a_count_or_size_is_a_positive_whole_number(name: str, raw: str) -> None:
    with pytest.raises(BadInput, match=f"{env_name(name)} must be a positive whole number"):
        Settings.from_env({env_name(name): raw})


@pytest.mark.parametrize("name", FLOATS)
def test_zero_seconds_is_refused_except_where_it_means_at_once(name: str) -> None:
    if bounds(name).zero_ok:
        assert getattr(Settings.from_env({env_name(name): "0"}), name) == 0.0
    else:
        with pytest.raises(BadInput, match=f"{env_name(name)} must be a positive number of seconds, got '0'"):
            Settings.from_env({env_name(name): "0"})


def test_upper_bounds() -> None:
    assert Settings.from_env({"SGTOOLS_MAX_ARG_BYTES": str(MAX_ARG_STRLEN)}).max_arg_bytes == MAX_ARG_STRLEN
    with pytest.raises(BadInput, match=f"SGTOOLS_MAX_ARG_BYTES must be at most {MAX_ARG_STRLEN} bytes"):
        Settings.from_env({"SGTOOLS_MAX_ARG_BYTES": str(MAX_ARG_STRLEN + 1)})
    with pytest.raises(BadInput, match="SGTOOLS_VERIFY_WORKERS must be at most 64, got '65'"):
        Settings.from_env({"SGTOOLS_VERIFY_WORKERS": "65"})
    with pytest.raises(BadInput, match="SGTOOLS_ENGINE_TIMEOUT must be at most 86400 seconds"):
        Settings.from_env({"SGTOOLS_ENGINE_TIMEOUT": "86401"})


def test_lowering_only_the_hard_cap_lowers_the_default() -> None:
    s = Settings.from_env({"SGTOOLS_HARD_MAX_RESULTS": "10"})
    assert s.default_max_results == 500 and requested_results(None, s) == 10
    assert requested_results(None, Settings()) == 500


def test_settings_built_in_code_are_checked_too() -> None:
    with pytest.raises(BadInput, match=r"Settings\.engine_timeout must be a positive number of seconds, got -1"):
        Settings(engine_timeout=-1)
    with pytest.raises(BadInput, match=r"Settings\.max_examples"):
        Settings().replace(max_examples=True)  # a bool is not a count
    with pytest.raises(BadInput, match=r"Settings\.max_code_bytes"):
        Settings(max_code_bytes=1.5)  # type: ignore[arg-type]
    assert Settings(engine_timeout=1).engine_timeout == 1  # an int number of seconds is fine


def test_get_settings_reads_the_environment_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings_mod, "_current", None)
    monkeypatch.setenv("SGTOOLS_MAX_EXAMPLES", "7")
    first = get_settings()
    monkeypatch.setenv("SGTOOLS_MAX_EXAMPLES", "8")
    assert first.max_examples == 7 and get_settings() is first


def test_get_settings_refuses_a_bad_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings_mod, "_current", None)
    monkeypatch.setenv("SGTOOLS_LOCK_TIMEOUT", "-5")
    with pytest.raises(BadInput, match="SGTOOLS_LOCK_TIMEOUT must be a positive number of seconds, got '-5'"):
        get_settings()


def test_requested_results() -> None:
    s = Settings(default_max_results=3)
    assert requested_results(None, s) == 3 and requested_results(7, s) == 7
    for bad in (0, -1, True, 1.5, "3"):
        with pytest.raises(BadInput, match="max_results must be a positive integer"):
            requested_results(bad, s)


# ---- start-up of the real CLI and MCP server ----------------------------------------------------------------------

def _run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SGTOOLS_")}
    clean.update(env, XDG_CACHE_HOME=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, *args], cwd=tmp_path, env=clean, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.parametrize("value", ["abc", "-5"])
def test_cli_scan_stops_at_start_up_on_a_bad_setting(tmp_path: Path, value: str) -> None:
    out = _run(["-m", "sgtools", "scan"], tmp_path, SGTOOLS_ENGINE_TIMEOUT=value)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith(
        f"[bad-input] SGTOOLS_ENGINE_TIMEOUT must be a positive number of seconds, got '{value}'"), out.stderr
    assert len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr
    assert out.stdout == ""


@pytest.mark.parametrize("entry", [
    ["-m", "sgtools", "serve"],
    ["-m", "sgtools", "serve", "--transport", "http", "--port", "1"],
    ["-c", "import sys; from sgtools.cli import serve_main; sys.argv[0] = 'context-sherpa'; sys.exit(serve_main())"],
], ids=["serve-stdio", "serve-http", "context-sherpa"])
def test_mcp_server_stops_at_start_up_on_a_bad_setting(tmp_path: Path, entry: list[str]) -> None:
    out = _run(entry, tmp_path, SGTOOLS_TOOL_TIMEOUT="soon")
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("[bad-input] SGTOOLS_TOOL_TIMEOUT must be a positive number of seconds, got 'soon'")
    assert "Traceback" not in out.stderr and out.stdout == ""  # nothing on stdout: it carries protocol messages


def test_a_good_setting_is_used(tmp_path: Path) -> None:
    """The check does not refuse good values: a tiny (valid) code cap reaches the service."""
    out = _run(["-m", "sgtools", "rule", "test", "--code", "x = 1" * 10, "--language", "python", "--file", "-"],
               tmp_path, SGTOOLS_MAX_CODE_BYTES="5")
    assert out.returncode == 2 and out.stderr.startswith("[too-large]"), out.stderr


# ---- the adapters hand their settings to services -----------------------------------------------------------------

def test_the_mcp_server_hands_its_settings_to_workspace_and_engine(tmp_path: Path) -> None:
    from sgtools.server.app import build_server

    tiny = Settings(max_code_bytes=5, hard_max_results=7)
    app = build_server(str(tmp_path), settings=tiny).app
    assert app is not None and app.settings is tiny
    assert app.ws.settings is tiny and app.engine.settings is tiny


def test_the_cli_hands_its_settings_to_workspace_and_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from sgtools.cli import common

    monkeypatch.setattr(settings_mod, "_current", None)
    monkeypatch.setenv("SGTOOLS_LOCK_TIMEOUT", "7")
    args = argparse.Namespace(root=str(tmp_path))
    assert common.workspace(args).settings.lock_timeout == 7 and common.engine().settings.lock_timeout == 7


def test_every_way_of_building_settings_is_checked() -> None:
    """The constructor, `replace`, and the tuple's own `_replace` and `_make` all refuse a bad value: the check
    lives in `Settings.__new__` and `_make`, not in a wrapper patched onto the class."""
    good = Settings()
    assert good._replace(engine_timeout=2.0).engine_timeout == 2.0 and type(good._replace()) is Settings
    for build in (lambda: Settings(engine_timeout=-1), lambda: good.replace(engine_timeout=-1),
                  lambda: good._replace(engine_timeout=-1), lambda: Settings._make([-1] * len(good))):
        with pytest.raises(BadInput, match="engine_timeout must be a positive number of seconds"):
            build()
