"""The snippet scans' input checks, shared by `snippet` (scan_code) and `overlay` (several pending files):
the code text a caller passed (`check_code`) and the rules its globs left out (`left_out`). Split out so the
overlay scan does not import the snippet scan that dispatches to it.
"""

from __future__ import annotations

from sgtools.core.errors import BadInput, TooLarge
from sgtools.core.settings import Settings
from sgtools.rules.ruleset import Rule


def check_code(code: object, settings: Settings) -> bytes:
    """The snippet as UTF-8 bytes; refuses non-text, NUL bytes and anything over `max_code_bytes`."""
    if not isinstance(code, str):
        raise BadInput(f"`code` must be a string, not {type(code).__name__}.")
    if "\x00" in code:
        raise BadInput("`code` contains NUL bytes: it looks like binary data. Pass source text.")
    try:
        data = code.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput("`code` is not valid Unicode text (lone surrogates). Pass UTF-8 source text.") from None
    limit = settings.max_code_bytes
    if len(data) > limit:
        raise TooLarge(
            f"`code` is {len(data)} bytes, over the {limit}-byte limit. Scan the file on disk with scan_code `paths` "
            "or raise SGTOOLS_MAX_CODE_BYTES."
        )
    return data


def left_out(of_lang: list[Rule], rules: list[Rule], lang: str, file: str | None) -> list[str]:
    """Said, not silent: the rules of the language that did not run because of their files/ignores globs."""
    if file is None:
        scoped = [r.id for r in of_lang if r.data.get("files") is not None]
        if scoped:
            return [f"{len(scoped)} rule(s) limited to some files did not run ({', '.join(scoped[:5])}"
                    f"{', …' if len(scoped) > 5 else ''}): pass `path` to check the code as that file."]
        return []
    ran = {id(r) for r in rules}  # by identity: `r not in rules` compared whole rules, n*m times per call
    skipped = [r.id for r in of_lang if id(r) not in ran]
    if skipped:
        return [f"{len(skipped)} {lang} rule(s) did not run on {file}: their files/ignores globs "
                f"leave it out ({', '.join(skipped[:5])}{', …' if len(skipped) > 5 else ''})."]
    return []
