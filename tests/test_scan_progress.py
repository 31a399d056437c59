"""Files checked and progress: ast-grep's own count of the files it scanned reaches the summary, the JSON and the
MCP result, and each file is reported as it is done (what the terminal progress line counts)."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

from sgtools.cli import main
from sgtools.cli.progress import Progress
from sgtools.engine.process import Engine, ScanWatch, _file_counter
from sgtools.project.workspace import Workspace
from sgtools.scan.paths import scan_path

RULE = "id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nrule: {pattern: eval($X)}\n"
FILES = 7


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "rules").mkdir()
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    (tmp_path / "rules" / "no-eval.yml").write_text(RULE)
    for i in range(FILES):
        (tmp_path / f"m{i}.py").write_text("eval(x)\n" if i == 0 else f"x = {i}\n")
    (tmp_path / "notes.txt").write_text("not code\n")
    return tmp_path


def test_engine_reports_each_file_as_it_is_done(project: Path, engine: Engine) -> None:
    seen: list[int] = []
    watch = ScanWatch(on_file=lambda: seen.append(1))
    engine.scan(config=project / "sgconfig.yml", cwd=project, watch=watch)
    assert len(seen) == FILES and watch.files == FILES


def test_file_lines_split_across_chunks_count_once() -> None:
    count: list[int] = []
    watch = ScanWatch(lambda: count.append(1))
    feed = _file_counter(watch)
    for chunk in (b"sg: entity|fi", b"le|a.py: language=Python\nsg: entity|rule|r: x\nsg: ent",
                  b"ity|file|b.py: language=Python\nsg: entity|file|c d.py: ski", b"pped=permissionDenied\n"):
        feed(chunk)
    assert len(count) == 3 and watch.skipped == [("c d.py", "permissionDenied")]


def test_summary_json_and_mcp_result_name_the_files_checked(project: Path, engine: Engine,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--root", str(project)]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == f"✖ 1 problem (1 error, 0 warnings, 0 info, 0 hints) in 1 file ({FILES} files checked)"
    (project / "m0.py").write_text("x = 0\n")
    assert main(["scan", "--root", str(project)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"✔ no problems found ({FILES} files checked)"
    assert main(["scan", "--root", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["filesChecked"] == FILES
    assert scan_path(Workspace(project), engine)["filesChecked"] == FILES


def test_progress_line_counts_files() -> None:
    progress = Progress(StringIO(), delay=0, total=1604)
    for _ in range(812):
        progress.file_done()
    assert re.fullmatch(r"sgtools: scanning… 812/1,604 files \d+s", progress.line())
    assert re.fullmatch(r"sgtools: scanning… 0 files \d+s", Progress(StringIO(), 0, None).line())  # total unknown


@pytest.mark.slow
def test_progress_on_a_terminal_shows_done_and_total(project: Path) -> None:
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGTOOLS_")}
    env["SGTOOLS_PROGRESS_DELAY"] = "0"  # show it at once, however fast the scan is
    proc = subprocess.Popen([sys.executable, "-m", "sgtools", "scan"], cwd=project, stdout=subprocess.DEVNULL,
                            stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(60)
    os.close(leader)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert re.search(rf"sgtools: scanning… \d+/{FILES} files", shown), shown
