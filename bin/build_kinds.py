#!/usr/bin/env python3
"""Write community_index/kinds.json: the node kinds the installed ast-grep parses the bundled rules' tests into.

The rule analyser checks a draft's `kind:` values against the kinds it knows for the language. Without this
table each process (a CLI run, a server start) on a machine with a cold cache parses about 60 bundled test
snippets per language, one ast-grep run each. Rebuild after changing the bundled rules or their tests, or for
a new ast-grep version: `python bin/build_kinds.py` (tests/test_kinds_table.py fails while it is stale).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from sgtools.core import bundled
from sgtools.engine.process import Engine
from sgtools.rules.analysis import kinds


def main() -> int:
    with tempfile.TemporaryDirectory() as cwd:
        table = kinds.harvest_bundled_kinds(Engine(), Path(cwd))
    out = bundled.bundled_dir() / kinds.KINDS_TABLE
    out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(table['kinds'])} languages for ast-grep {table['astGrep']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
