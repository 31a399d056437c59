"""The fault catalogue: each family of hostile-input and fault probes reports what it tried and what failed.

Run `pytest -s -k catalogue` (or any fault test with `-s`) to see the lines; a family passes only with zero failures.
"""

from __future__ import annotations

from collections.abc import Sequence

# The opening of a child process that SIGKILLs itself at its `kill_at`-th counted step (argv: kill_at, root,
# scenario, ...): the crash-consistency families wrap the calls they count with `counted` after this preamble.
KILL_AT_STEP_CHILD = """\
import os, signal, subprocess, sys
kill_at, root, scenario = int(sys.argv[1]), sys.argv[2], sys.argv[3]
steps = [0]

def counted(fn):
    def step(*args, **kwargs):
        steps[0] += 1
        if steps[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return fn(*args, **kwargs)
    return step

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
ws, engine = Workspace(root), Engine()
engine.version()  # warm up outside the counted steps
"""


def report(family: str, probes: int, failures: Sequence[object]) -> None:
    """Print one catalogue line and fail the test, naming the first failures, unless none failed."""
    print(f"\nFAULT CATALOGUE | {family}: {probes} probes, {len(failures)} failures")
    assert probes > 0, f"{family}: no probe ran"
    assert not failures, f"{family}: {len(failures)} of {probes} probes failed, e.g. {list(failures)[:5]}"


# The families and where they live (run them with `-s -m ''` to see every line, slow ones included):
#   protocol over stdio / HTTP, surrogates in every string argument, text from disk: e2e/test_mcp_faults.py
#   filesystem faults (real tmpfs: read-only, full, no inodes; wrong types, loops): tests/test_fs_faults.py
#   symlink-swap race (1,000 attempts): tests/test_write_race.py
#   skips (minified heuristic on real bundles vs sources; an unreadable file, without root): tests/test_skips.py
#   concurrency: two `sgtools trust` at once, 20 rounds: tests/test_trust_race.py
#   read-side symlink-swap race (1,000 find_code/scan_path calls): tests/test_read_race.py
#   lang add that fails (a sample that cannot parse; SIGKILL at 20 points): tests/test_lang_add_rollback.py
#   edits during a scan (a rule rewritten every few ms: 100 path scans, 25 `scan --fix`): tests/test_rule_race.py
#   crash consistency (SIGKILL at every step of every multi-file write): tests/test_crash_consistency.py
#   SIGKILL at every step of community import, rule add, lang add and trust (half states; a retried import
#   completes): tests/test_kill_every_step.py
#   pathological glob (< 100 ms on a 10 kB path): tests/test_globs.py
#   lifecycle (ast-grep dies with the server / CLI on stdin close, SIGTERM, SIGKILL, Ctrl-C; 40 cancelled and 40
#   timed-out calls): e2e/test_lifecycle.py (unit level: tests/test_lifecycle.py)
#   30,000 fixes in one file: tests/test_fix_scale.py; engine calls per request: tests/test_engine_budget.py
