"""What the re-scan of an edited copy says about each fix-it in it: `verified`, `verification`, `confidence`.

A fix-it is only `verified` when the edited text (1) parses with no more ERROR nodes than before and (2) no
longer triggers that rule at that spot. `confidence` is derived from that check and from what else the edit
did (new diagnostics from other rules, deleting code, overlapping another fix), never a constant.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from sgtools.contracts.fixits import Fixit, Verification
from sgtools.contracts.scan import Diagnostic
from sgtools.edit.text import Span

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch

# The rule id the scanner adds to every verification rule file: `kind: ERROR`, to count parse errors.
PARSE_RULE_ID = "_sgtools-parse-error"


@dataclass
class Member:
    """One fix-it under verification; its edit in the original text's byte coordinates."""

    job: int
    fixit: Fixit
    diag: Diagnostic
    span: Span
    info: dict[str, Any] = field(default_factory=dict)
    extra: tuple[Span, ...] = ()  # the fix-it's other edits (its imports): applied and mapped with it

    @property
    def target(self) -> tuple[int, int]:
        return int(self.diag["byteStart"]), int(self.diag["byteEnd"])

    @property
    def new_len(self) -> int:
        return len(self.span.new_text.encode("utf-8"))


@dataclass
class EditedText:
    """One edited copy of a job's text: a single fix-it, or several whose matches and edits do not touch (a
    file with fifty findings then costs one copy, not fifty); when a combined copy shows anything unexpected,
    it is halved until the culprits stand alone."""

    job: int
    members: list[Member]
    new_text: str = ""
    # Set by `judge` when a combined copy fails and every unexplained match (or new parse error) lies where some
    # members edited: those members, the likely culprits (fixits/verify.py checks them alone, the rest together).
    suspects: list[Member] = field(default_factory=list)


def _byte_range(m: AstGrepMatch) -> tuple[int, int]:
    off = m["range"]["byteOffset"]
    return int(off["start"]), int(off["end"])


def _map_range(r: tuple[int, int], start: int, old_end: int, delta: int) -> tuple[int, int] | None:
    """Where a range of the old text lies after one edit, or None when the edit cut through it."""
    a, b = r
    if b <= start:
        return r
    if a >= old_end:
        return a + delta, b + delta
    if a <= start and b >= old_end:
        return a, b + delta
    return None


class _Cut(NamedTuple):
    """One edit of a copy, in the original text's bytes: what it replaces and how long its new text is."""

    start: int
    end: int
    new_len: int


def _cuts(members: Sequence[Member]) -> list[_Cut]:
    """Every edit of the members (their fixes and their imports), sorted; edits shared by several fix-its (the
    same import edit) are one cut."""
    spans = {(s.start, s.end, s.new_text) for m in members for s in (m.span, *m.extra)}
    return sorted(_Cut(a, b, len(t.encode("utf-8"))) for a, b, t in spans)


def _map_through(r: tuple[int, int] | None, cuts_desc: Sequence[_Cut]) -> tuple[int, int] | None:
    """Through several non-overlapping edits, last first, so earlier offsets stay valid at each step."""
    for c in cuts_desc:
        if r is None:
            return None
        r = _map_range(r, c.start, c.end, c.new_len - (c.end - c.start))
    return r


class _Shifts:
    """`_map_through` for many edits at once: O(log n) per range instead of O(n), so judging one copy with
    thousands of fix-its stays linear in its matches (the edits are sorted and do not overlap)."""

    def __init__(self, cuts: Sequence[_Cut]) -> None:
        self.cuts = cuts
        self.starts = [c.start for c in cuts]
        self.ends = [c.end for c in cuts]
        self.prefix = [0]
        for c in cuts:
            self.prefix.append(self.prefix[-1] + c.new_len - (c.end - c.start))

    def before(self, at: int) -> int:
        """How far the edits starting before `at` move it."""
        return self.prefix[bisect.bisect_left(self.starts, at)]

    def map(self, r: tuple[int, int]) -> tuple[int, int] | None:
        a, b = r
        if a >= b:  # an empty range: the edit-by-edit rules decide ties at insertion points
            return _map_through(r, list(reversed(self.cuts)))
        i = bisect.bisect_right(self.ends, a)  # edits ending at or before `a` shift the whole range
        j = bisect.bisect_left(self.starts, b)  # edits starting at or after `b` do not touch it
        if i < j and (self.starts[i] < a or self.ends[j - 1] > b):
            return None  # an edit cuts through the range
        return a + self.prefix[i], b + self.prefix[max(i, j)]


def _by_rule(matches: Sequence[AstGrepMatch]) -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    for m in matches:
        out.setdefault(str(m.get("ruleId")), []).append(_byte_range(m))
    return out


def judge(text: EditedText, old: Sequence[AstGrepMatch], new: Sequence[AstGrepMatch],
           rule_ids: frozenset[str] | None) -> bool:
    """Record what the re-scan of one edited copy shows in each member's `info`; False when a combined
    copy must be split. Matches that the edits merely moved are told apart from new ones by mapping every
    old match through the edits; only unexplained matches count."""
    members = sorted(text.members, key=lambda m: (m.span.start, m.span.end))
    shifts = _Shifts(_cuts(members))
    old_by, new_by = _by_rule(old), _by_rule(new)
    errors_before = len(old_by.get(PARSE_RULE_ID, []))
    errors_after = len(new_by.get(PARSE_RULE_ID, []))
    own = {str(m.diag["ruleId"]) for m in members}
    left_by = {rid: _leftovers(rid, old_by, new_by, members, shifts) for rid in new_by
               if rid != PARSE_RULE_ID and (rule_ids is None or rid in rule_ids or rid in own)}
    spots = _spots(members, shifts)
    if len(members) > 1:
        # An unexplained match, for whatever rule, means one of the fix-its still fires there or something new
        # appeared. When each such match touches one member's edit alone and the copy parses no worse, it is that
        # member's, as it would be in a copy of its own: every member is judged from this copy (`_attributed`).
        # Otherwise the caller splits the copy.
        if errors_after <= errors_before and _attributed(members, left_by, spots, rule_ids,
                                                          (errors_before, errors_after)):
            return True
        text.suspects = _suspects(members, left_by, _leftovers(PARSE_RULE_ID, old_by, new_by, members, shifts)
                                  if errors_after > errors_before else [], spots)
        return False
    fires = [any(_hits(r, where) for r in left_by.get(str(m.diag["ruleId"]), []))
             for m, where in zip(members, spots, strict=True)]
    unexplained = _unexplained(left_by, members, spots)
    for m, where, fired in zip(members, spots, fires, strict=True):
        same = sum(1 for r in left_by.get(str(m.diag["ruleId"]), []) if not _hits(r, where))
        m.info = _info(errors_before, errors_after, fires=fired, others=unexplained - same, same=same)
    return True


def _info(errors_before: int, errors_after: int, *, fires: bool, others: int, same: int = 0) -> dict[str, Any]:
    return {"checked": True, "parseErrorsBefore": errors_before, "parseErrorsAfter": errors_after,
            "stillFires": fires, "newDiagnostics": others + same, "_same": same, "_others": others}


def _attributed(members: Sequence[Member], left_by: Mapping[str, list[tuple[int, int]]],
                spots: Sequence[list[tuple[int, int]]], rule_ids: frozenset[str] | None,
                errors: tuple[int, int]) -> bool:
    """Judge every member of a failed combined copy from it when each unexplained match touches exactly one
    member's spot: that match is the member's own rule still firing there (`stillFires`) or a new diagnostic of
    its edit, as a copy of that member alone shows it; the members no match touches are as clean as in a copy
    that passed. This saves the round that checked them apart. The edits do not touch, so a match is another
    edit's only through a rule that looks away from the node it reports (`follows`/`precedes`, a distant `has`):
    then a fix-it is told it brought or kept a finding it did not, the cautious side (a lower confidence, or
    unverified), never the reverse. False, with nothing recorded, when a match touches no member or several
    (the caller splits the copy)."""
    mine: list[list[str]] = [[] for _ in members]
    for rid, left in left_by.items():
        for r in left:
            touched = [i for i, where in enumerate(spots) if _hits(r, where)]
            if len(touched) != 1:
                return False
            mine[touched[0]].append(rid)
    for m, rids in zip(members, mine, strict=True):
        own = str(m.diag["ruleId"])
        # what a copy of this member alone would count: its own rule, and the rules that apply to the file
        others = sum(1 for rid in rids if rid != own and (rule_ids is None or rid in rule_ids))
        m.info = _info(*errors, fires=own in rids, others=others)
    return True


def _suspects(members: Sequence[Member], left_by: Mapping[str, list[tuple[int, int]]],
              new_errors: Sequence[tuple[int, int]], spots: Sequence[list[tuple[int, int]]]) -> list[Member]:
    """The members whose spots an unexplained match or a new parse error touches; none when one of those touches
    no member's spot (its cause is unknown: the caller halves the copy instead)."""
    hit: set[int] = set()
    for r in [r for left in left_by.values() for r in left] + list(new_errors):
        touched = {i for i, where in enumerate(spots) if _hits(r, where)}
        if not touched:
            return []
        hit |= touched
    return [m for i, m in enumerate(members) if i in hit]


def _spots(members: Sequence[Member], shifts: _Shifts) -> list[list[tuple[int, int]]]:
    """"There", for each fix-it: its edited bytes, and where the flagged code sits after the edits (mapped by
    bisection: edit by edit, a copy of n fix-its cost n * n steps, minutes for 30,000 fix-its in one file)."""
    spots: list[list[tuple[int, int]]] = []
    for m in members:
        lo = m.span.start + shifts.before(m.span.start)
        where = [(lo, lo + m.new_len)]
        moved = shifts.map(m.target)
        if moved is not None:
            where.append(moved)
        spots.append(where)
    return spots


def _leftovers(rid: str, old_by: Mapping[str, list[tuple[int, int]]], new_by: Mapping[str, list[tuple[int, int]]],
               members: Sequence[Member], shifts: _Shifts) -> list[tuple[int, int]]:
    """The matches of rule `rid` after the edits that are not old matches moved by them."""
    olds = Counter(old_by.get(rid, []))
    for m in members:
        if str(m.diag["ruleId"]) == rid and olds[m.target] > 0:
            olds[m.target] -= 1
    mapped = Counter(r for r in (shifts.map(o) for o in olds.elements()) if r is not None)
    left: list[tuple[int, int]] = []
    for r in new_by.get(rid, []):
        if mapped[r] > 0:
            mapped[r] -= 1
        else:
            left.append(r)
    return left


def _unexplained(left_by: Mapping[str, list[tuple[int, int]]], members: Sequence[Member],
                 spots: Sequence[list[tuple[int, int]]]) -> int:
    """New matches that are not the edited fix-its' own rules firing where they edited: other rules' matches,
    or the same rule's somewhere else."""
    return sum(1 for rid, left in left_by.items() for r in left
               if not any(_hits(r, where) for m, where in zip(members, spots, strict=True)
                          if str(m.diag["ruleId"]) == rid))


def _hits(r: tuple[int, int], where: list[tuple[int, int]]) -> bool:
    return any(r[0] <= hi and r[1] >= lo for lo, hi in where)


def finish(m: Member) -> None:
    """Set `verified`, `verification` and `confidence` from everything the checks found."""
    fx, info = m.fixit, m.info
    parses = info["parseErrorsAfter"] <= info["parseErrorsBefore"]
    missing_worse = info.get("missingAfter") is not None and info["missingAfter"] > info["missingBefore"]
    parses = parses and not missing_worse
    verified = parses and not info["stillFires"]
    fx["verified"] = verified
    fx["verification"] = cast(Verification, {k: v for k, v in info.items() if not k.startswith("_")})
    fx["confidence"] = _confidence(
        fx, verified=verified, parses=parses, still_fires=info["stillFires"],
        broken_before=info["parseErrorsBefore"] > 0 or bool(info.get("missingBefore")),
        new_other=info["_others"], new_same=info["_same"],
        missing_unchecked=info.get("missingAfter") is None and "missingCheck" not in info,
    )
    cap = fx.get("confidenceCap")
    if isinstance(cap, Mapping):  # what was measured for this rule's fixes on real code (fixits/safety.py)
        fx["confidence"] = min(fx["confidence"], float(cap["value"]))


def _confidence(fx: Mapping[str, Any], *, verified: bool, parses: bool, still_fires: bool, broken_before: bool,
                new_other: int, new_same: int, missing_unchecked: bool = False) -> float:
    """How safe it is to apply this fix-it blindly, from what the re-scan showed."""
    if not parses:
        return 0.1
    if still_fires:
        return 0.25
    score = 0.95
    edit = fx["edits"][0]
    if edit["newText"] == "":
        score -= 0.15  # deleting code is right for the rule, not always for the program
    if "\n" in edit["newText"] or edit["endLine"] != edit["line"]:
        score -= 0.05
    if new_other:
        score -= min(0.3, 0.1 * new_other)
    if new_same:
        score -= min(0.3, 0.1 * new_same)
    if broken_before:
        score -= 0.1  # the text already had parse errors, so "parses no worse" says less
    if fx.get("conflictsWith"):
        score -= 0.05
    if missing_unchecked:
        score -= 0.05  # tree-sitter's MISSING tokens could not be counted for this text
    return round(max(0.3 if verified else 0.05, min(1.0, score)), 2)
