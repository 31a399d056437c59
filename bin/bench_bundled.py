"""B1 on projects holding all bundled rules of one language (issue 31 part 4): snippets with findings and fixes,
clean snippets, and the bare `ast-grep scan` of the same text with the same rules (one multi-document rule file
holding those rules, as the spawn path hands them to ast-grep).

Bare ast-grep is timed twice: one run right after each of the raw client's calls (interleaved, so that load moves
both sides alike) and in a block of runs before and after those calls. Interleaved, bare ast-grep ran 10-15%
slower than in a block (TypeScript, one check at 6f35097), which flatters our ratio; each row shows the ratio
against both and is judged by the worse."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BUNDLED = REPO / "community_index" / "rules"

SNIPPETS: dict[str, dict[str, str]] = {
    "python": {
        "findings": '''import hashlib
import requests
import yaml


def load(path):
    with open(path, "r") as f:
        data = yaml.load(f)
    if data == None:
        return None
    return data


def fetch(url, user):
    resp = requests.get(url, verify=False)
    token = hashlib.md5(user.encode()).hexdigest()
    try:
        value = eval(resp.text)
    except:
        value = None
    return token, value
''',
        "clean": "def add(a, b):\n    return a + b\n" * 15,
    },
    "typescript": {
        "findings": '''const count: number = 5;
if (a == b) { run(); }
const n = parseInt(input);
if (list.indexOf(x) !== -1) { found(); }
// @ts-ignore
const s: String = "x";
items.forEach(async (i) => { await save(i); });
''',
        "clean": "export function add(a: number, b: number): number {\n  return a + b;\n}\n" * 10,
    },
    "go": {
        "findings": '''package main

import (
	"io"
	"io/ioutil"
	"strings"
	"time"
)

func f(start time.Time, s string, r io.Reader) {
	d := time.Now().Sub(start)
	if strings.Index(s, "x") != -1 {
		s = strings.Replace(s, "a", "b", -1)
	}
	b, _ := ioutil.ReadAll(r)
	_, _ = d, b
}
''',
        "clean": "package main\n\n" + "func add(a, b int) int {\n\treturn a + b\n}\n\n" * 10,
    },
}


def bundled_project(work: Path, language: str) -> tuple[Path, Path]:
    """A project whose rules/ holds every bundled rule of `language`, and the same rules in one file."""
    root = work / f"b1-bundled-{language}"
    if root.exists():
        shutil.rmtree(root)
    (root / "rules").mkdir(parents=True)
    files = sorted((BUNDLED / language).glob("*.yml"))
    for f in files:
        shutil.copy(f, root / "rules" / f.name)
    (root / "sgconfig.yml").write_text("ruleDirs:\n- rules\n", encoding="utf-8")
    multi = root / "all-rules.yml"
    multi.write_text("\n---\n".join(f.read_text(encoding="utf-8").strip("\n").removeprefix("---\n")
                                    for f in files) + "\n", encoding="utf-8")
    return root, multi


def bare_block(bare: dict[str, Callable[[], object]], n: int, warmup: int = 2) -> dict[str, list[float]]:
    """Seconds per bare run, each case `n` times in a row (after `warmup` untimed runs)."""
    out: dict[str, list[float]] = {}
    for name, run in bare.items():
        for _ in range(warmup):
            run()
        out[name] = []
        for _ in range(n):
            t = time.perf_counter()
            run()
            out[name].append(time.perf_counter() - t)
    return out


def bundled_row(ours: dict[str, float], interleaved: dict[str, float], block: dict[str, float],
                budget: float | None) -> dict[str, Any]:
    """A row against bare ast-grep timed both ways (summaries of milliseconds): its ratio, the one the budget
    judges, is the worse of the two; both are kept in `ratios`."""
    ratios = {"interleaved": round(ours["median_ms"] / interleaved["median_ms"], 2),
              "block": round(ours["median_ms"] / block["median_ms"], 2)}
    row: dict[str, Any] = {"sgtools": ours, "ast-grep interleaved": interleaved, "ast-grep in a block": block,
                           "ratio": max(ratios.values()), "ratios": ratios}
    if budget is not None:
        row["budget"] = ["ratio", budget]
    return row

