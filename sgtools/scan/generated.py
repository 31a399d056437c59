"""Generated and bundled code, known by content rather than folder name: nobody edits it by hand, so findings in
it are not worth reading. Folder names (node_modules, dist, *.min.js) are project/excludes.py's; this module
looks at a matched file's text: `// Code generated ... DO NOT EDIT.` (Go's convention), `@generated` near the
top, a `/*! ... */` licence banner of a bundle, a source-map comment, very long lines of minified code, and
Sphinx's copied `_static/` assets.

Findings in such files are dropped and counted (`skippedGenerated` lists the files, `generated` counts per
rule); a project keeps them with `skipGenerated: false` in sgconfig.yml.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from sgtools.project.config import ProjectConfig

CONFIG_KEY: Final = "skipGenerated"
HEAD_CHARS: Final = 2048  # markers count only near the top, where generators put them
MINIFIED_LINE_CHARS: Final = 1000  # a line this long is not hand-written
MINIFIED_MEAN_CHARS: Final = 200  # ... when lines are this long on average too

_GO_GENERATED: Final = re.compile(r"^// Code generated .* DO NOT EDIT\.$", re.MULTILINE)
_AT_GENERATED: Final = re.compile(r"@generated\b")
_SOURCE_MAP: Final = re.compile(r"^\s*(?://|/\*)# sourceMappingURL=\S+", re.MULTILINE)


def enabled(cfg: ProjectConfig | None) -> bool:
    """On unless sgconfig.yml says `skipGenerated: false`."""
    return cfg is None or cfg.raw.get(CONFIG_KEY, True) is not False


def why_generated(path: str | None, text: str) -> str | None:
    """Why the file at `path` with `text` is generated or bundled, or None when it looks hand-written."""
    if path and "/_static/" in "/" + path.replace("\\", "/"):
        return "Sphinx _static asset"
    head = text[:HEAD_CHARS]
    if _GO_GENERATED.search(head):
        return "Code generated ... DO NOT EDIT"
    if _AT_GENERATED.search(head):
        return "@generated"
    if head.lstrip().startswith("/*!"):
        return "bundle banner /*! */"
    if _SOURCE_MAP.search(text[-HEAD_CHARS:]):
        return "compiled output with a source map"
    # Every `\n` ends a line, so a text whose length per `\n` is short has short lines on average: hand-written
    # code (nearly every matched file) is told apart at C speed, without splitting it into lines.
    if len(text) < MINIFIED_MEAN_CHARS * text.count("\n"):
        return None
    lines = text.splitlines() or [""]
    if len(text) / len(lines) >= MINIFIED_MEAN_CHARS and max(map(len, lines)) >= MINIFIED_LINE_CHARS:
        return "minified"
    return None
