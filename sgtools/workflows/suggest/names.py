"""Call names as a regex (issue 29): the names shown written as the family an ast-grep author means: a shared
prefix at a word part (`^mysql_`), a stem with short endings (`^fmt\\.Print`), names one letter apart
(`^ato\\w{1,2}$` for `atoi` / `atol`; `^\\w?scanf$` for `scanf` / `sscanf`), an output family
(`^Console\\.Write(Line)?$`), log levels on one logger (`^logging\\.(debug|info|...)$`), a last word part
(`^fs\\.\\w+Sync$`), else the names themselves."""

from __future__ import annotations

import re
from collections.abc import Sequence

from sgtools.workflows.suggest.roots import common_prefix


def name_regex(texts: Sequence[str]) -> str | None:
    """A regex for names: a shared prefix or suffix that ends at a word part (`mysql_`, `Err`), else the names."""
    if not all(re.fullmatch(r"[\w.:$@\\]+[!?]?", t) for t in texts):
        return None
    uniq = list(dict.fromkeys(texts))
    bang = _bang(uniq)
    if bang is not None:
        return bang
    family = output_family(uniq) or level_family(uniq)
    if family is not None:
        return family
    if len(uniq) == 1:
        return f"^{re.escape(uniq[0])}$"
    prefix = common_prefix(uniq)
    if _stem(prefix, uniq):
        return f"^{re.escape(prefix)}"
    suffix = common_prefix([t[::-1] for t in uniq])[::-1]
    letter = _one_letter(prefix, suffix, uniq)
    if letter is not None:
        return letter
    if len(suffix) >= 3 and all(len(t) == len(suffix) or t[-len(suffix) - 1] in "_.:" for t in uniq):
        return f"(^|[_.:]){re.escape(suffix)}$"
    qualifiers = {re.sub(r"[^.:]*$", "", t) for t in uniq}
    if len(qualifiers) > 1:  # `load` / `r.json`: not one name written differently but different things
        return None
    hump = _last_hump(suffix, uniq)
    if hump is not None:
        return f"^{re.escape(qualifiers.pop())}\\w+{hump}$"
    return "^(" + "|".join(re.escape(t) for t in uniq) + ")$"


def _one_letter(prefix: str, suffix: str, names: Sequence[str]) -> str | None:
    """Names one letter apart: at the end on a stem of three or more letters, a family with short endings
    (`^ato\\w{1,2}$` for `atoi` / `atol`: `atof`, `atoll`); a name and the same with a letter in front, a family
    with a letter in front or none (`^\\w?printf$` for `printf` / `fprintf`: `sprintf`, not `snprintf`)."""
    if len(re.split(r"\.|::", prefix)[-1]) >= 3 and all(len(t) == len(prefix) + 1 for t in names):
        return f"^{re.escape(prefix)}\\w{{1,2}}$"
    if len(suffix) >= 4 and suffix in names and all(re.fullmatch(r"\w?", t[:-len(suffix)]) for t in names):
        return f"^\\w?{re.escape(suffix)}$"
    return None


def _bang(names: Sequence[str]) -> str | None:
    """Ruby's `save` and `save!` are one method, the bang variant raising where the other returns false: names
    equal up to a trailing `!` are that name with an optional bang (`^save!?$`). `?` names a predicate, another
    method, so only `!`."""
    bare = {t.rstrip("!") for t in names}
    if len(bare) != 1 or len(names) < 2 or not all(re.fullmatch(r"[\w.:]+!?", t) for t in names):
        return None
    return f"^{re.escape(bare.pop())}!?$"


# Output calls come in families that differ by a line or format ending (`print` / `println` / `printf`,
# `Console.Write` / `WriteLine`, `log.Fatal` / `Fatalf` / `Fatalln`, `document.write` / `writeln`): a request
# about one of them is about the family, so a name of such a stem is said with the family's endings.
_FAMILY = re.compile(r"(?P<stem>(?:^|[.:])(?:[Pp]rint|[Ww]rite|Fatal|Panic))(?P<end>ln|f|Line)?$")
_ENDINGS = {"Write": "Line", "write": "ln"}


def output_family(names: Sequence[str]) -> str | None:
    found = [_FAMILY.search(t) for t in names]
    stems = {t[:m.end("stem")] for t, m in zip(names, found, strict=True) if m is not None}
    if len(stems) != 1 or not all(found):
        return None
    stem = stems.pop()
    word = re.split(r"[.:]", stem)[-1]
    ends = _ENDINGS.get(word, "ln|f")
    return f"^{re.escape(stem)}({ends})?$"


# Logging calls come in a family of levels on one logger (`logging.info`, `log.warning`, `logger.error`): two of
# them shown on one qualifier mean the logger's calls, whatever the level.
_LEVELS = ("trace", "debug", "info", "notice", "warn", "warning", "error", "exception", "critical", "fatal", "log")


def level_family(names: Sequence[str]) -> str | None:
    """Two or more log levels called on one qualifier (`logging.info`, `logging.exception`): every level on it."""
    split = [re.fullmatch(r"(.*[.:])?([a-z]+)", t) for t in names]
    if len(names) < 2 or not all(m is not None and m.group(2) in _LEVELS for m in split):
        return None
    qualifiers = {m.group(1) or "" for m in split if m is not None}
    if len(qualifiers) != 1:
        return None
    return f"^{re.escape(qualifiers.pop())}({'|'.join(_LEVELS)})$"


def _last_hump(suffix: str, names: Sequence[str]) -> str | None:
    """The last capitalised word part every name ends with (`Sync` of `readFileSync` / `writeFileSync`): a
    family named by its ending, whatever comes before it."""
    m = re.search(r"[A-Z][a-z0-9]{2,}$", suffix)
    if m is None or any(len(t) <= len(m.group(0)) for t in names):
        return None
    return re.escape(m.group(0))


def _stem(prefix: str, names: Sequence[str]) -> bool:
    """A prefix that ends at a word part (`mysql_`, `assert` + `Equals`), or a long stem whose names differ only by
    a short ending (`Print` + `ln` / `f`): one name written in variants (`strc` + `py` / `at` are two names)."""
    last = re.split(r"\.|::", prefix)[-1]
    longer = [t[len(prefix):] for t in names if len(t) > len(prefix)]
    if len(last) >= 3 and (prefix[-1] in "_" or all(r[0].isupper() for r in longer)):
        return True
    return len(last) >= 5 and all(len(r) <= 2 for r in longer)


# Families whose names share no stem but every author knows whole: a request that says a family by some of them
# ("boxing constructors like new Integer(...), new Long(...)") means all of them.
_KNOWN_FAMILIES = (("Integer", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Character"),)  # boxed primitives


def family_stem(names: Sequence[str]) -> tuple[str, str] | None:
    """The word-part stem two or more names of one family share, as a regex for a whole name and a label: a start
    (`find_by_\\w*` for `find_by_email` / `find_by_slug!`, `componentWill\\w*`), an end from a word part
    (`\\w*_filter` for `before_filter` / `after_filter`), or both (`assert\\w*Equals` for `assertEquals` /
    `assertNotEquals`, not every assert), or a family known whole (the boxed primitives); None when they share
    neither. A family said by its stem takes the members nobody showed (`around_filter`, `find_by_role`)."""
    uniq = list(dict.fromkeys(t.rstrip("!?") for t in names))
    if len(uniq) < 2 or not all(re.fullmatch(r"\w+", t) for t in uniq):
        return None
    known = next((f for f in _KNOWN_FAMILIES if set(uniq) <= set(f)), None)
    if known is not None:
        return "|".join(known), "/".join(known)
    prefix = common_prefix(uniq)
    prefix = prefix if prefix and _stem(prefix, uniq) else ""
    suffix = common_prefix([t[len(prefix):][::-1] for t in uniq])[::-1]
    suffix = suffix if len(suffix.lstrip("_")) >= 3 and (suffix[0] == "_" or suffix[0].isupper()) else ""
    if not prefix and not suffix:
        return None
    return rf"{re.escape(prefix)}\w*{re.escape(suffix)}[!?]?", f"{prefix}*{suffix}"
