"""Fault catalogue, crash consistency of the project-changing commands: `community import`, `rule add`, `lang add`
and `trust`, each SIGKILLed at every step of a real run (every rename, unlink and process start, counted in a child
process that kills itself with a real SIGKILL there), leave no half state once the next command starts:

- import, add: the rule, its test and its snapshot are all as before or all new, and the project's own
  `ast-grep test` passes; a retried import then succeeds and leaves them all new (issue 33.5);
- lang add (a grammar whose sample cannot parse, so every run ends refused): sgconfig.yml is as before, the
  library it built is not left trusted (before, a kill during the sample parse left it so), and the trust store is
  whole JSON;
- trust: the trust store is whole JSON holding the old entries or the old and the new.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from sgtools.project import config as project
from sgtools.project import grammar
from sgtools.project.workspace import JOURNAL_NAME, Workspace
from tests.faults import KILL_AT_STEP_CHILD, ForkServer, report

NATIVE = Path(__file__).resolve().parent / "data" / "native" / "marker.c"
RULE = "id: no-exec\nlanguage: python\nseverity: error\nmessage: no exec\nrule: {pattern: exec($X)}\n"
PLAIN_CONFIG = "ruleDirs: [rules]\n"
TRUST_CONFIG = "ruleDirs: [rules]\ncustomLanguages:\n  marker:\n    libraryPath: lib/marker.so\n    extensions: [mk]\n"

CHILD = KILL_AT_STEP_CHILD + textwrap.dedent("""
    arg = sys.argv[4]
    from sgtools.community import service
    from sgtools.engine import trust
    from sgtools.project import grammar
    from sgtools.rules import store
    os.replace, os.rename, os.unlink = counted(os.replace), counted(os.rename), counted(os.unlink)
    subprocess.Popen.__init__ = counted(subprocess.Popen.__init__)  # every process start is a step too
    try:
        if scenario == "import":
            service.import_community_rule(ws, engine, arg)
        elif scenario == "add":
            store.add_or_update_rule(ws, engine, "no-exec", arg, ["run(x)"], ["exec(x)", "exec(y)"])
        elif scenario == "lang add":
            grammar.add_language(ws, engine, "fake", arg, ["fk"])
        elif scenario == "trust":
            trust.trust(ws.root / "sgconfig.yml")
    except Exception as exc:  # a refused run is an outcome too (lang add's sample never parses)
        print(type(exc).__name__, file=sys.stderr)
    print(steps[0])
""")


def _env(base: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(base / "config"), "XDG_CACHE_HOME": str(base / "cache")}


# What CHILD imports, imported once by the fork server each scenario's children are forked from (tests/faults.py).
PRELOAD = ["sgtools.engine.process", "sgtools.project.workspace", "sgtools.community.service", "sgtools.engine.trust",
           "sgtools.project.grammar", "sgtools.rules.store"]


def _run(children: ForkServer, root: Path, scenario: str, arg: str, kill_at: int) -> subprocess.CompletedProcess[str]:
    return children.run(str(kill_at), str(root), scenario, arg, timeout=300)


def _store(env: dict[str, str]) -> tuple[bool, dict[str, str]]:
    """(whole JSON, its libraries) of the trust store in this environment."""
    path = Path(env["XDG_CONFIG_HOME"]) / "context-sherpa" / "trusted-parsers.json"
    if not path.exists():
        return True, {}
    try:
        return True, dict(json.loads(path.read_text())["libraries"])
    except (ValueError, KeyError, TypeError):
        return False, {}


def _rule_files(root: Path, rid: str) -> dict[str, bytes | None]:
    files = [f"rules/{rid}.yml", f"rule-tests/{rid}-test.yml", f"rule-tests/__snapshots__/{rid}-snapshot.yml"]
    return {f: (root / f).read_bytes() if (root / f).is_file() else None for f in files}


class Scenario:
    """One command: how to set up a project, what argument to give it, and what a whole state is."""

    def __init__(self, name: str, rid: str, arg: str, config: str = "") -> None:
        self.name, self.rid, self.arg, self.config = name, rid, arg, config

    def setup(self, root: Path) -> None:
        root.mkdir(parents=True)
        if self.config:
            (root / "rules").mkdir()
            (root / "lib").mkdir()
            (root / "sgconfig.yml").write_text(self.config)
            (root / "lib" / "marker.so").write_bytes(b"\x7fELF not really a library")  # hashed, never loaded
        else:
            project.initialize(Workspace(root))

    def state(self, root: Path, env: dict[str, str]) -> Any:
        if self.name in ("import", "add"):
            return _rule_files(root, self.rid)
        whole, libs = _store(env)
        return ((root / "sgconfig.yml").read_text(), whole, sorted(libs))

    def half(self, root: Path, env: dict[str, str], old: Any, new: Any, ast_grep: str) -> str | None:
        """What is wrong with the state the next command finds (None: nothing)."""
        Workspace(root)  # the next command starts: an interrupted write set is finished here
        now = self.state(root, env)
        if (root / JOURNAL_NAME).exists():
            return "journal left behind"
        if self.name in ("import", "add"):
            if now not in (old, new):
                return f"torn: {sorted(f for f in now if now[f] != old[f])}"
            check = subprocess.run([ast_grep, "test"], cwd=root, capture_output=True, text=True, timeout=120)
            if check.returncode != 0:
                return f"ast-grep test fails: {check.stdout[-200:]}"
            return None
        config, whole, libs = now
        if not whole:
            return "the trust store is not whole JSON"
        if config not in (old[0], new[0]):
            return f"sgconfig.yml is neither before nor after: {config!r}"
        if self.name == "trust" and libs not in (old[2], new[2]):
            return f"trust store holds {libs}"
        if self.name == "lang add" and "fake" in config:
            return "a grammar whose sample cannot parse was registered"
        if self.name == "lang add" and libs:
            return f"the built library is left trusted though no config names it: {libs}"
        return None


def _scenarios(tmp_path: Path) -> list[Scenario]:
    from tests.test_community_import import bundled_rule_with_tests

    grammar_src = tmp_path / "grammar" / "src"
    grammar_src.mkdir(parents=True)
    # Compiles and exports tree_sitter_fake, but is no grammar (it returns NULL): ast-grep cannot parse with it.
    (grammar_src / "parser.c").write_text(NATIVE.read_text().replace(
        "const void *tree_sitter_marker(void) { return NULL; }",
        "typedef struct TSLanguage TSLanguage;\nconst TSLanguage *tree_sitter_fake(void) { return NULL; }"))
    out = [Scenario("import", str(bundled_rule_with_tests()["id"]), str(bundled_rule_with_tests()["id"])),
           Scenario("add", "no-exec", RULE),
           Scenario("trust", "", "", TRUST_CONFIG)]
    if any(map(shutil.which, grammar.COMPILERS)):
        out.append(Scenario("lang add", "", str(tmp_path / "grammar"), PLAIN_CONFIG))
    return out


def _kill_at_every_step(sc: Scenario, base: Path, env: dict[str, str], children: ForkServer, ast_grep: str,
                        failures: list[object]) -> int:
    """One scenario: a warm-up run, a whole run (its steps, its before and after), then a run killed at each step."""
    warm = base / "warm"  # a first run builds what later runs reuse (the grammar's library, caches)
    sc.setup(warm)
    _run(children, warm, sc.name, sc.arg, 10**9)
    shutil.rmtree(Path(env["XDG_CONFIG_HOME"]), ignore_errors=True)
    ref = base / "ref"
    sc.setup(ref)
    old = sc.state(ref, env)
    done = _run(children, ref, sc.name, sc.arg, 10**9)
    assert done.stdout.strip(), done.stderr
    steps = int(done.stdout.split()[-1])
    new = sc.state(ref, env)
    for kill_at in range(1, steps + 1):
        shutil.rmtree(Path(env["XDG_CONFIG_HOME"]), ignore_errors=True)  # the trust store as it was
        root = base / f"k{kill_at}"
        sc.setup(root)
        killed = _run(children, root, sc.name, sc.arg, kill_at)
        if killed.returncode not in (-9, 0):
            failures.append((sc.name, kill_at, "failed", killed.returncode, killed.stderr[-300:]))
            continue
        wrong = sc.half(root, env, old, new, ast_grep)
        if wrong is None and sc.name == "import" and sc.state(root, env) != new:
            again = _run(children, root, sc.name, sc.arg, 10**9)  # the retried import repairs / completes
            if "Conflict" in again.stderr or sc.state(root, env) != new:
                wrong = f"the retried import did not complete it: {again.stderr[-200:]}"
        if wrong is not None:
            failures.append((sc.name, kill_at, wrong))
    return steps


@pytest.mark.slow
def test_catalogue_sigkill_at_every_step_of_import_add_lang_add_and_trust(tmp_path: Path) -> None:
    ast_grep = str(Path(sys.executable).parent / "ast-grep")
    failures: list[object] = []
    probes = 0
    counts = []
    for sc in _scenarios(tmp_path):
        base = tmp_path / sc.name.replace(" ", "-")
        env = _env(base)
        with ForkServer(CHILD, PRELOAD, base / "runs", env) as children:
            steps = _kill_at_every_step(sc, base, env, children, ast_grep, failures)
        probes += steps
        counts.append(f"{sc.name}: {steps} steps")
    print("\n" + "; ".join(counts))
    report("crash consistency: SIGKILL at every step of import, add, lang add and trust (half states)",
           probes, failures)
