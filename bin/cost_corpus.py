"""Fetch the fixed corpus of the bundled rules' cost budget (bin/bench_cost.py) from package registries.

    python bin/cost_corpus.py [DEST]      # default .ci-cache/cost-corpus; .ci/run calls it at install time

Exact versions, so every run times the same files: Python (requests, flask), C and C++ (ujson), Java and shell
(JPype1), C# (pythonnet), YAML (the workflows those sdists carry), JavaScript (lodash), TypeScript (zod),
TypeScript and TSX (react-day-picker), Go (cobra), Rust (regex), Ruby (rack), PHP (psr/log). Kotlin has none yet.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from precision import fetch  # the same download-and-unpack steps as the precision corpus)

ROOT = Path(__file__).resolve().parent.parent
CORPUS = [
    ("pip", "requests==2.32.3"), ("pip", "flask==3.0.3"), ("pip", "ujson==5.10.0"), ("pip", "JPype1==1.5.0"),
    ("pip", "pythonnet==3.0.3"), ("npm", "lodash@4.17.21"), ("npm", "zod@3.23.8"),
    ("npm", "react-day-picker@8.10.1"), ("apt", "golang-github-spf13-cobra-dev=1.6.1-1"),
    ("apt", "librust-regex-dev=1.7.1-1"), ("apt", "ruby-rack=2.2.22-0+deb12u1"), ("apt", "php-psr-log=1.1.4-2"),
]


def main() -> int:
    """Fetch each package on its own: one the registry no longer has (a superseded Debian version) costs the
    budget test that language only, and says so here."""
    dest = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".ci-cache" / "cost-corpus"
    missing = []
    for item in CORPUS:
        try:
            fetch([item], dest)
        except subprocess.CalledProcessError:
            missing.append(item[1])
    if missing:
        print(f"warning: could not fetch {', '.join(missing)}; the cost bench skips their languages",
              file=sys.stderr)
    return 1 if len(missing) == len(CORPUS) else 0


if __name__ == "__main__":
    sys.exit(main())
