"""Per language, the import edit a fix needs (fixits/imports.py chooses the language).

Each language module has `plan(text, fixed, add, remove) -> Plan`: `text` is the file, `fixed` the same file under
all of one rule's fixes there, `add`/`remove` what the rule declares in `metadata.fixImports`. The plan is one
edit of the file's import block (or none) and the imports it could not place, each with the reason (a name the
file already uses for something else, an import of another thing under that name). A fix-it with such a missing
import is `unsafe` and says which import is missing (fixits/imports.py).

The import block is read from the file's text as the language's own grammar lays it out at the top of a file
(comments and string literals blanked first, so a template in a string is never read as code); the edit is then
proven the way every fix-it is: ast-grep re-scans the whole edited file, import block included (fixits/verify.py).
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Plan(NamedTuple):
    """`edit`: (start, end, new text) in characters of the file's text, or None; `missing`: (import, why)."""

    edit: tuple[int, int, str] | None
    missing: list[tuple[str, str]]


NOTHING = Plan(None, [])

# String literals and comments per language, blanked to spaces of the same length (newlines kept).
_PY_CODE = re.compile(r'''(?s)[rRbBuUfF]{0,2}("""|\'\'\').*?\1|#[^\n]*|[rRbBuUfF]{0,2}"(?:\\.|[^"\\\n])*"'''
                      r"""|[rRbBuUfF]{0,2}'(?:\\.|[^'\\\n])*'""")
_C_LIKE = re.compile(r'''(?s)//[^\n]*|/\*.*?\*/|"""(?:.*?)"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])'|`[^`]*`''')
_RUST_CODE = re.compile(r'''(?s)//[^\n]*|/\*.*?\*/|r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"|b?'(?:\\.|[^'\\\n])\'''')
BLANKERS = {"python": _PY_CODE, "java": _C_LIKE, "go": _C_LIKE, "rust": _RUST_CODE}


def blank(text: str, language: str) -> str:
    """`text` with its comments and string literals replaced by spaces (newlines kept): the same offsets."""
    return BLANKERS[language].sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def bare_count(code: str, name: str, before: str = r"\w.") -> int:
    """How often `name` stands on its own in blanked `code`: not part of a longer word, not after `before`'s
    characters (a member access `x.name` or a path `a::name` is another thing)."""
    return len(re.findall(rf"(?<![{before}]){re.escape(name)}(?!\w)", code))


def outside(code: str, spans: list[tuple[int, int]]) -> str:
    """`code` with the given spans (the import statements) blanked too."""
    out = list(code)
    for a, b in spans:
        out[a:b] = [c if c == "\n" else " " for c in code[a:b]]
    return "".join(out)


def need(name: str, text_code: str, fixed_code: str, before: str = r"\w.") -> tuple[bool, bool]:
    """(the fixes add a use of `name`, the file already uses `name` for something), on blanked code with its
    import statements blanked too."""
    was = bare_count(text_code, name, before)
    return bare_count(fixed_code, name, before) > was, was > 0


def line_end(text: str, at: int) -> int:
    """The offset just past the newline of the line holding `at` (or the text's end)."""
    nl = text.find("\n", at)
    return len(text) if nl < 0 else nl + 1


def after_line(text: str, at: int, lines: str) -> tuple[int, int, str]:
    """The edit putting `lines` on their own lines after the line holding `at` (the last import), whether or not
    the text ends with a newline there."""
    end = line_end(text, at)
    return end, end, ("" if text[:end].endswith("\n") else "\n") + lines


def before(text: str, at: int, lines: str) -> tuple[int, int, str]:
    """The edit putting `lines` before offset `at` (the first statement), a blank line between when code follows."""
    return at, at, lines + ("\n" if at < len(text) else "")
