"""CPU instructions of the Python process for bin/bench's one-process CLI rows, counted by callgrind.

Timings move with the load of a shared machine; instruction counts do not. This prints, in millions, what the
Python process of B6 (`sgtools scan --format json` of one file in a 20-rule project) and of B5's CLI row
(`sgtools rule add` into a 200-rule project) executes, beside the floor (`python -c pass`). The projects are
bin/bench's own (bin/bench_rules.write_project); each command runs once first, so the caches a second run reads
are filled, and bytecode is written as an installed package has it. ast-grep runs as a child and is not counted
(`--trace-children=no`). docs/performance.md quotes these figures.

    python -m bin.instructions              # B6, B5 and the floor (about a minute: callgrind runs ~50x slower)
    python -m bin.instructions --only B6

Needs valgrind (`apt-get install -y valgrind`); exits 1 without it or when a command fails.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bin.bench_rules import SNIPPET, write_project  # noqa: E402

SGTOOLS = str(Path(sys.executable).parent / "sgtools")
SETTLE_S = 2.5  # files older than core.cache.SETTLE_NS are remembered by stat, as in bin/bench's later rounds
COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def count(argv: list[str], cwd: Path) -> int:
    """Instructions callgrind counts for one run of argv (the process itself, not its children)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="sgtools-callgrind-") as out:
        proc = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=no",
                               f"--callgrind-out-file={out}/callgrind.out", *argv],
                              cwd=cwd, env=env, capture_output=True, text=True, check=False)
    found = COLLECTED.search(proc.stderr)
    if proc.returncode > 1 or not found:
        raise RuntimeError(f"{' '.join(argv[:3])} exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return int(found.group(1))


def rows(work: Path, only: set[str] | None) -> list[tuple[str, int]]:
    out = [("floor: python -c pass", count([sys.executable, "-c", "pass"], work))]
    if not only or "B6" in only:
        root = write_project(work / "b6", 20)
        (root / "snippet.py").write_text(SNIPPET)
        time.sleep(SETTLE_S)
        argv = [SGTOOLS, "scan", "--root", str(root), "--format", "json", "snippet.py"]
        subprocess.run(argv, cwd=root, capture_output=True, check=False)  # fills the rule and analysis caches
        out.append(("B6: sgtools scan --format json, one file, 20 rules", count(argv, root)))
    if not only or "B5" in only:
        root = write_project(work / "b5", 200)
        time.sleep(SETTLE_S)
        for i in range(2):  # the first add fills the per-directory memo of rule ids; the second is counted
            rid = f"cli-added-{i}"
            rule = work / f"{rid}.yml"
            rule.write_text(f"id: {rid}\nlanguage: python\nseverity: warning\nmessage: m\n"
                            f"rule:\n  pattern: cli_{i}($A)\n")
            argv = [SGTOOLS, "rule", "add", rid, "--file", str(rule), "--root", str(root),
                    "--invalid", f"cli_{i}(1)", "--valid", "other(1)"]
            if i == 0:
                subprocess.run(argv, cwd=root, capture_output=True, check=False)
            else:
                out.append(("B5: sgtools rule add, 200-rule project", count(argv, root)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated: B5, B6 (the floor is always counted)")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        print("valgrind is not installed: apt-get install -y valgrind", file=sys.stderr)
        return 1
    import compileall

    compileall.compile_dir(str(REPO / "sgtools"), quiet=1)
    only = {w.strip() for w in args.only.split(",")} if args.only else None
    with tempfile.TemporaryDirectory(prefix="sgtools-instructions-") as tmp:
        try:
            measured = rows(Path(tmp), only)
        except RuntimeError as exc:
            print(f"instructions FAILED: {exc}", file=sys.stderr)
            return 1
    print("| command | million instructions (Python process) |\n| --- | --- |")
    for name, n in measured:
        print(f"| {name} | {n / 1e6:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
