"""`sgtools scan` of one file starts fast: the analyser, the YAML parser (the parse cache answers) and the MCP
SDK are not imported on that path. Each costs tens of milliseconds of a run that should take under 100; the
thread pool of fix-it verification and `platform` (for crash reports) a few more, and so do the smaller ones
listed last (a report-only scan verifies no fix-it, writes nothing and has no rule with globs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parent.parent / "e2e" / "sample_repo"
HEAVY = ("ruamel", "jsonschema", "mcp", "sgtools.rules.analysis.service", "sgtools.rules.analysis.globs",
         "sgtools.server", "concurrent.futures", "platform",
         # each a few milliseconds: crash reports, diffs and writes, the fix-it verifier, the warm engine, globs
         "traceback", "difflib", "secrets", "logging", "sgtools.project.journal", "sgtools.fixits.verify",
         "sgtools.fixits.judge", "sgtools.engine.warm", "sgtools.scan.warmscan", "sgtools.core.globs",
         "platformdirs", "tempfile", "orjson", "difflib", "sgtools.scan.changes", "sgtools.rules.syntax",
         "hashlib", "sgtools.engine.testreport",  # OpenSSL: core/digest.py has the two digests a scan uses
         # ~9 million: the import planners of fix-its (four languages' modules and regexes), for fixImports rules
         "sgtools.fixits.importers",
         # ~40 million instructions: dataclasses imports inspect (with ast, dis, tokenize); records on this path
         # are NamedTuples or plain classes
         "dataclasses", "inspect", "ast",
         # ~7 million: shutil imports zlib, bz2 and lzma (argparse's help formatter imported it for the width)
         "shutil", "bz2", "lzma",
         # ~11 million: the TypedDict shapes of results (typing builds each class); the path imports them only
         # for type checking, the MCP server's schemas load them
         "sgtools.contracts.scan", "sgtools.contracts.fixits", "sgtools.contracts.rules", "sgtools.contracts.project")
NOT_COMPILED = ("(?m)^package[ \\t]+\\w+[^\\n]*$", "(?m)^(?:func|var|const|type)\\b", "(?<!\\r)\\n",
                "[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_PROBE = """
import builtins, json, sys
compiled = []
_compile = builtins.compile
def _counted(source, filename, *args, **kwargs):
    if not str(filename).endswith(".py"):  # not the import system compiling a module without its bytecode
        compiled.append(str(source)[:80])
    return _compile(source, filename, *args, **kwargs)
builtins.compile = _counted
import re
patterns = []
_re_compile = re._compile
def _noted(pattern, flags):
    patterns.append(str(pattern))
    return _re_compile(pattern, flags)
re._compile = _noted
from sgtools.cli import main
try:
    code = main(["scan", "python/calc.py", "--format", "json"])
finally:
    print(json.dumps(patterns), file=sys.stderr)
    print(json.dumps(compiled), file=sys.stderr)
    print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.slow
def test_one_file_scan_imports_no_heavy_module(tmp_path: Path) -> None:
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", _PROBE], cwd=root, env=env, capture_output=True, text=True,
                           timeout=120) for _ in range(2)]  # the first fills the parse cache
    assert '"issues"' in runs[1].stdout, runs[1].stderr[-2000:]
    patterns, compiled, loaded = runs[1].stderr.strip().splitlines()[-3:]
    heavy = [m for m in HEAVY if f'"{m}"' in loaded or f'"{m}.' in loaded]
    assert heavy == []
    # patterns a one-file Python scan never matches, compiled on first use (LazyRe) or in modules it does not
    # load: Go's import blocks (fixits/importers/go.py), the rule-id check, CRLF edits
    assert [p for p in json.loads(patterns) if p in NOT_COMPILED] == []
    # The first builtin compile() of a process sets up the AST types (~10 million instructions): a string
    # annotation in a NamedTuple or TypedDict under `from __future__ import annotations` is compiled by typing.
    assert json.loads(compiled) == []


_FREEZE_PROBE = """
import contextlib, gc, io, sys
from sgtools.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["scan", "python/calc.py", "--format", "json"])
    passed = gc.get_freeze_count()
    sys.argv = ["sgtools", "scan", "python/calc.py", "--format", "json"]
    main()
print(passed, gc.get_freeze_count() > 0)
"""


def test_the_sgtools_command_leaves_its_objects_to_the_exit(tmp_path: Path) -> None:
    """Run as the `sgtools` command (argv from sys.argv), the CLI freezes its objects before it exits, so the
    interpreter's shutdown does not collect every module's cycles (~17 million instructions of a one-file scan);
    a caller that passes argv (tests, `context-sherpa`) keeps its collector as it was."""
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, "-c", _FREEZE_PROBE], cwd=root, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.stdout.split() == ["0", "True"], run.stderr[-2000:]
