"""Fix-its checked by re-scanning: all fix-its of a scan together, edited copies handed to ast-grep per
language in chunks of whole files of at most `fixit_verify_chunk_bytes` a call (fixits/judge.py reads each
copy's result).

An agent applies a fix-it without reading it closely, so none is `verified` unless the edited text was
scanned again; what could not be checked (limits, a failed re-scan) says why.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

from sgtools.contracts.fixits import Fixit
from sgtools.contracts.scan import Diagnostic
from sgtools.core.errors import SgToolsError
from sgtools.core.settings import Settings
from sgtools.edit.text import Span, apply_edits, to_span
from sgtools.engine import lifecycle
from sgtools.fixits.judge import EditedText, Member, finish, judge

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from sgtools.engine.match import AstGrepMatch

LIMIT_REACHED = "verification limit reached"

BatchRunner = Callable[[str, Sequence[str]], "list[list[AstGrepMatch]]"]
# (language, text) -> how many MISSING tokens tree-sitter inserted to parse it, or None when it cannot tell.
MissingCounter = Callable[[str, str], int | None]


class _Count(Protocol):
    """A MISSING-token count to be read once the rounds are done: a running `Future`, or `_AfterRounds`."""

    def result(self) -> int | None: ...


@dataclass
class VerifyJob:
    """The fix-its of one scanned text. `baseline` is that text's matches under the verification rules when
    the caller already has them (snippet scans); otherwise the text is scanned in the same batch."""

    key: str
    text: str
    language: str
    diags: list[Diagnostic]
    rule_ids: frozenset[str] | None = None  # rules that apply to this file; None: every rule scanned
    baseline: list[AstGrepMatch] | None = None
    counted: bool = False  # `count_missing` knows this text's MISSING tokens already (the snippet's warm scan)


def _unchecked(fx: Fixit, reason: str, *, bad_edit: bool = False) -> None:
    """Record why a fix-it was not checked; one whose edit cannot even be applied gets the lowest confidence."""
    fx["verification"] = {"checked": False, "reason": reason}
    if bad_edit:
        fx["confidence"] = 0.05


def _plan(text: str, members: Sequence[Member],
          counts_left: list[int]) -> tuple[list[list[Member]], set[int], set[int]]:
    """The copies to make for one job's fix-its (see `verify_fixits`), the ids of the members whose copy gets a
    MISSING-token count, and the ids of those that could drop a token (`_may_drop_token`, asked once here).
    `counts_left[0]`: how many more fix-its get a count (taken here): a fix that could drop a token gets one
    while they last, and shares a copy only with fixes that cannot (the count is of its copy; the others keep
    brackets, terminators and operands, so the copy's count is its own). Past that cap it shares a copy like
    any other, never one holding a counted fix (ansible_core: 213 of its 348 fix-its could drop a token, 149 of
    them past the cap of 64, each a copy of its whole file)."""
    alone: list[list[Member]] = []
    shared: list[Member] = []
    counted: set[int] = set()
    droppers: set[int] = set()
    data = text.encode("utf-8")  # once per text: encoding it per fix-it made 30,000 fix-its in a file quadratic
    for m in members:
        drops = _may_drop_token(data, m.span)
        if drops:
            droppers.add(id(m))
        if m.extra:  # a fix-it with imports is checked alone: its import edit is the one its neighbours carry too
            alone.append([m])
            continue
        if drops and counts_left[0] > 0:
            counts_left[0] -= 1
            counted.add(id(m))
        shared.append(m)
    return [*alone, *_apart(shared, droppers, counted)], counted, droppers


def _zone(m: Member) -> tuple[int, int]:
    """The bytes a fix-it reads or writes: its edit and the match it fixes."""
    lo, hi = m.target
    return min(lo, m.span.start), max(hi, m.span.end)


def _apart(members: Sequence[Member], droppers: AbstractSet[int] = frozenset(),
           counted: AbstractSet[int] = frozenset()) -> list[list[Member]]:
    """Members in copies whose zones are disjoint and not even adjacent (first fit, by position). A member of
    `counted` (a fix that could drop a token, whose copy's MISSING tokens are counted) joins no copy holding
    another of `droppers`, and no other dropper joins its copy: the count is then that one fix's."""
    groups: list[list[Member]] = []
    ends: list[int] = []
    kinds: list[int] = []  # per copy: 0 no dropper, 1 droppers uncounted, 2 a counted one
    for m in sorted(members, key=lambda m: (_zone(m), m.span.start, m.span.end)):
        lo, hi = _zone(m)
        kind = 2 if id(m) in counted else 1 if id(m) in droppers else 0
        for g, end in enumerate(ends):
            if end < lo and (kind == 0 or kinds[g] == 0 or kind == kinds[g] == 1):
                groups[g].append(m)
                ends[g] = hi
                kinds[g] = max(kinds[g], kind)
                break
        else:
            groups.append([m])
            ends.append(hi)
            kinds.append(kind)
    return groups


_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))
_TERMINATORS = ";,:"
_DANGLING = re.compile(r"[^\w\s)\]}\"'`]\s*$")


def _may_drop_token(data: bytes, span: Span) -> bool:
    """Whether a fix could make tree-sitter insert a MISSING token. That happens when a token the grammar
    requires goes away: a closing bracket (the edit changes the bracket balance), a terminator or separator
    (fewer `;`, `,` or `:`), or an operand (the new text ends on an operator). Other fixes are not counted,
    since each count is one more engine call on the hot path. `data`: the text, UTF-8 (the span's offsets are
    bytes), encoded once by the caller for all its fix-its."""
    old = data[span.start:span.end].decode("utf-8", "replace")
    new = span.new_text
    if any(old.count(o) - old.count(c) != new.count(o) - new.count(c) for o, c in _PAIRS):
        return True
    if any(new.count(t) < old.count(t) for t in _TERMINATORS):
        return True
    return bool(_DANGLING.search(new))


def verify_fixits(jobs: Sequence[VerifyJob], run_batch: BatchRunner,
                  count_missing: MissingCounter | None = None, *, settings: Settings,
                  counted_by_rescan: bool = False) -> None:
    """Check every fix-it of `jobs` in place: `run_batch(language, texts)` calls per language, each of whole
    files up to the `fixit_verify_chunk_bytes` setting, which must scan each text with the rules that produced
    the diagnostics plus the `PARSE_RULE_ID` rule (and more per round while combined copies are halved: at most
    log2 of the largest copy's size rounds).

    ERROR nodes are counted by the batch; tree-sitter can also recover by inserting a MISSING token (a
    dropped `}` or `;`) with no ERROR node at all, which no rule can match. `count_missing` counts those for
    `fix` fix-its (engine calls on threads, alongside the batch, up to `fixit_missing_check_max`).
    `counted_by_rescan`: `run_batch` counts them itself in every text it scans (the warm engine's counting rule,
    scan/missing.py), and `count_missing` answers from those counts: the originals to count go into the first
    round beside their copies (unless counted already: `VerifyJob.counted`), and every count is read after the
    rounds, with no engine call of its own."""
    chosen = _choose(jobs, settings.fixit_verify_max)
    copies = _Copies(jobs, settings.fixit_verify_max_bytes)
    # One copy of a file per fix-it made the work quadratic (a file with 30,000 findings never got verified).
    # So fix-its whose matches and edits do not touch are checked together in one copy, and a copy showing
    # anything unexpected is split in halves until the culprits stand alone (log2 n more rounds at most).
    # A fix that could drop a token the grammar needs shares its copy only with fixes that cannot, while
    # MISSING-token counts are left: the count is of its copy, so it is that fix's (it once had a copy of its
    # own: one more document per round, 2 where 1 does for the B1 snippets of TypeScript and Python).
    counts_left = [max(0, settings.fixit_missing_check_max) if count_missing is not None else 0]
    counted: set[int] = set()
    droppers: set[int] = set()
    groups: list[tuple[int, list[Member]]] = []
    for j, members in chosen.items():
        planned, ids, drop = _plan(jobs[j].text, members, counts_left)
        groups += [(j, g) for g in planned]
        counted |= ids
        droppers |= drop
    texts = copies.make(groups)
    # MISSING-token counts run on their own threads while the batch scans (they only read the texts), unless
    # the batch counts them itself; a counted copy holds one fix that could lose a token, so its count is that
    # fix-it's (counted again in its next copy when a failed copy is split: `_recounting`).
    pool = _pool(settings) if count_missing is not None and not counted_by_rescan else None
    missing: dict[int, tuple[_Count, _Count]] = {}
    no_token_lost: set[int] = set()
    recount: set[int] = set()
    start_count: Callable[[str, str], _Count] | None = None
    try:
        if count_missing is not None:
            counter = count_missing

            def start(language: str, text: str) -> _Count:
                return pool.submit(counter, language, text) if pool is not None else _AfterRounds(counter,
                                                                                                   language, text)

            start_count = start

            missing, no_token_lost = _count_missing(start, jobs, texts, settings.fixit_missing_check_max,
                                                    counted, droppers)
            if counted_by_rescan:
                recount = {t.job for t in texts
                           if not jobs[t.job].counted and any(id(m) in missing for m in t.members)}
        done = _run_rounds(jobs, texts, run_batch, _recounting(copies.make, missing, jobs, start_count),
                           settings.fixit_verify_chunk_bytes, recount)
        _record_missing(done, missing)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    for m in done:
        if id(m) in no_token_lost:
            m.info["missingCheck"] = "not needed: the fix keeps brackets, terminators and operands"
        finish(m)


def _recounting(make: Callable[[Iterable[tuple[int, list[Member]]]], list[EditedText]],
                missing: dict[int, tuple[_Count, _Count]], jobs: Sequence[VerifyJob],
                start: Callable[[str, str], _Count] | None,
                ) -> Callable[[Iterable[tuple[int, list[Member]]]], list[EditedText]]:
    """`make` for the next round's copies, whose counted fix-its (a combined copy that failed, split) are
    counted again in their new copy: the old count was of the copy with the fixes now taken out."""
    if start is None or not missing:
        return make

    def remake(groups: Iterable[tuple[int, list[Member]]]) -> list[EditedText]:
        made = make(groups)
        for t in made:
            for m in t.members:
                if id(m) in missing:
                    missing[id(m)] = (missing[id(m)][0], start(jobs[t.job].language, t.new_text))
        return made

    return remake


def _choose(jobs: Sequence[VerifyJob], max_count: int) -> dict[int, list[Member]]:
    """The fix-its to check, at most `max_count`; the others are marked unchecked."""
    left = max_count
    chosen: dict[int, list[Member]] = {}
    for j, job in enumerate(jobs):
        for diag in job.diags:
            for fx in diag.get("fixits", []):
                if left <= 0:
                    _unchecked(fx, LIMIT_REACHED)
                    continue
                try:
                    span, *extra = [to_span(e) for e in fx["edits"]]
                except SgToolsError as exc:
                    _unchecked(fx, exc.message, bad_edit=True)
                    continue
                left -= 1
                chosen.setdefault(j, []).append(Member(j, fx, diag, span, extra=tuple(extra)))
    return chosen


class _Copies:
    """Edited copies of the jobs' texts, within a budget of bytes for all copies together."""

    def __init__(self, jobs: Sequence[VerifyJob], max_bytes: int) -> None:
        self.jobs = jobs
        self.bytes_left = max_bytes

    def make(self, groups: Iterable[tuple[int, list[Member]]]) -> list[EditedText]:
        """One copy per group of non-overlapping edits; a group whose edits cannot be applied together is
        tried one edit at a time."""
        out: list[EditedText] = []
        for j, group in groups:
            out.extend(self._copy(j, group))
        return out

    def _copy(self, j: int, group: list[Member]) -> list[EditedText]:
        text = self.jobs[j].text
        if self.bytes_left < len(text):
            for m in group:
                _unchecked(m.fixit, LIMIT_REACHED)
            return []
        try:
            new_text = apply_edits(text, [e for m in group for e in m.fixit["edits"]])
        except SgToolsError as exc:
            if len(group) > 1:
                return self.make((j, [m]) for m in group)
            _unchecked(group[0].fixit, exc.message, bad_edit=True)
            return []
        self.bytes_left -= len(new_text)
        return [EditedText(j, group, new_text)]


def _pool(settings: Settings) -> ThreadPoolExecutor:
    from concurrent.futures import ThreadPoolExecutor  # ~7 ms to import: only when counts need threads

    return ThreadPoolExecutor(max_workers=max(1, settings.verify_workers), **lifecycle.pool_args())


class _AfterRounds:
    """A count asked for when it is read, after the rounds: by then the re-scan of its text has counted it."""

    def __init__(self, count_missing: MissingCounter, language: str, text: str) -> None:
        self.count_missing, self.language, self.text = count_missing, language, text

    def result(self) -> int | None:
        return self.count_missing(self.language, self.text)


def _count_missing(start: Callable[[str, str], _Count], jobs: Sequence[VerifyJob], texts: Sequence[EditedText],
                   cap: int, counted: AbstractSet[int],
                   droppers: AbstractSet[int]) -> tuple[dict[int, tuple[_Count, _Count]], set[int]]:
    """Start counting MISSING tokens before and after each copy holding one fix that could lose a token (up to
    `cap`): one `_plan` gave a count (`counted`), or one alone in its copy; also the ids of the fix-its that
    cannot lose one (not among `_plan`'s `droppers`)."""
    originals: dict[int, _Count] = {}
    missing: dict[int, tuple[_Count, _Count]] = {}
    no_token_lost = {id(m) for t in texts for m in t.members if id(m) not in droppers}
    for t, m in _one_dropper(texts, no_token_lost, counted)[:max(0, cap)]:
        job = jobs[t.job]
        if t.job not in originals:
            originals[t.job] = start(job.language, job.text)
        missing[id(m)] = (originals[t.job], start(job.language, t.new_text))
    return missing, no_token_lost


def _one_dropper(texts: Sequence[EditedText], no_token_lost: AbstractSet[int],
                 counted: AbstractSet[int]) -> list[tuple[EditedText, Member]]:
    """The copies whose MISSING-token count is one fix-it's: the only member that could lose a token, counted
    by the plan or alone in its copy; with that member."""
    out: list[tuple[EditedText, Member]] = []
    for t in texts:
        droppers = [m for m in t.members if id(m) not in no_token_lost]
        if len(droppers) == 1 and (id(droppers[0]) in counted or len(t.members) == 1):
            out.append((t, droppers[0]))
    return out


def _record_missing(done: Sequence[Member], missing: Mapping[int, tuple[_Count, _Count]]) -> None:
    """MISSING counts matter only for a fix that otherwise passed: record them there."""
    for m in done:
        counts = missing.get(id(m))
        if counts is None or m.info["stillFires"] or m.info["parseErrorsAfter"] > m.info["parseErrorsBefore"]:
            continue
        before, after = counts[0].result(), counts[1].result()
        if before is not None and after is not None:
            m.info["missingBefore"] = before
            m.info["missingAfter"] = after


def _run_rounds(jobs: Sequence[VerifyJob], texts: list[EditedText], run_batch: BatchRunner,
                make_texts: Callable[[Iterable[tuple[int, list[Member]]]], list[EditedText]],
                chunk_bytes: int, recount: set[int]) -> list[Member]:
    """Scan the copies (in chunks of whole files, see `_scan_round`), judge them, and split combined copies that
    need it (one more round while any copy needs it) until every fix-it is judged. The originals of `recount`
    are scanned again in the first round (their counts are read from it), keeping their known baselines."""
    baselines: dict[int, list[AstGrepMatch]] = {
        j: job.baseline for j, job in enumerate(jobs) if job.baseline is not None}
    done: list[Member] = []
    round_texts = texts
    while round_texts:
        results = _scan_round(jobs, round_texts, run_batch, baselines, chunk_bytes, recount)
        recount = set()
        retry: list[EditedText] = []
        for t, found in zip(round_texts, results, strict=True):
            if found is None:
                continue  # its chunk's re-scan failed: its members say why
            if judge(t, baselines[t.job], found, jobs[t.job].rule_ids):
                done.extend(t.members)
            else:
                retry.append(t)
        round_texts = make_texts((t.job, part) for t in retry for part in _split(t))
    return done


# Suspects of a failed combined copy checked alone (the rest in one copy), at most this many; more are halved.
SUSPECTS_ALONE = 4


def _split(t: EditedText) -> list[list[Member]]:
    """The next round's groups for a combined copy that failed. When the re-scan showed where the trouble is
    (`judge` names the members whose edits it touches, `EditedText.suspects`) and they are few: each suspect
    alone and the others together, so one bad fix-it among n costs one more round, not log2(n) (the bundled
    TypeScript rules' snippet: 4 rounds became 2). Otherwise halves: log2(n) more rounds, never n copies."""
    suspects = t.suspects
    if 0 < len(suspects) <= SUSPECTS_ALONE and len(suspects) < len(t.members):
        rest = [m for m in t.members if not any(m is s for s in suspects)]
        return [*([s] for s in suspects), rest]
    half = len(t.members) // 2
    return [t.members[:half], t.members[half:]]


# Bytes of text (originals and their copies) one re-scan call gets: the `fixit_verify_chunk_bytes` setting
# (SGTOOLS_FIXIT_VERIFY_CHUNK_BYTES). Why its default is 4 MiB: one call per language over every copy of a package
# exceeded the engine's per-call time limit (30 s): sqlalchemy's 68 files with fix-its made 234 texts,
# 20.8 MB, one ast-grep call of 14-17 s of CPU with the 71 Python rules that took 55-85 s of wall time on the
# shared 2-core machine, so all 184 of its fix-its were left unverified. At the measured ~1.4 MB per CPU second,
# 4 MiB is about 3 s of CPU, inside the limit even at four times that in waiting; the per-call start (~30 ms)
# stays small beside it. A file and all its copies always go in the same call.


class _Unit(NamedTuple):
    """One job's texts in one round: its original when no baseline is known yet, then its copies."""

    job: int
    original: bool
    copies: list[int]  # positions in the round's texts
    size: int


def _units(jobs: Sequence[VerifyJob], round_texts: Sequence[EditedText],
           baselines: Mapping[int, list[AstGrepMatch]], recount: set[int]) -> dict[str, list[_Unit]]:
    """The round's texts per language, per job (a file's copies stay together), in order."""
    by_job: dict[int, list[int]] = {}
    for i, t in enumerate(round_texts):
        by_job.setdefault(t.job, []).append(i)
    out: dict[str, list[_Unit]] = {}
    for j, positions in by_job.items():
        original = j not in baselines or j in recount
        size = (len(jobs[j].text) if original else 0) + sum(len(round_texts[i].new_text) for i in positions)
        out.setdefault(jobs[j].language, []).append(_Unit(j, original, positions, size))
    return out


def _chunks(units: Sequence[_Unit], limit: int) -> list[list[_Unit]]:
    """Consecutive units packed up to `limit` bytes per chunk; a unit larger than that is a chunk alone."""
    chunks: list[list[_Unit]] = []
    size = 0
    for u in units:
        if not chunks or size + u.size > limit:
            chunks.append([])
            size = 0
        chunks[-1].append(u)
        size += u.size
    return chunks


def _scan_round(jobs: Sequence[VerifyJob], round_texts: Sequence[EditedText], run_batch: BatchRunner,
                baselines: dict[int, list[AstGrepMatch]], chunk_bytes: int,
                recount: set[int]) -> list[list[AstGrepMatch] | None]:
    """Each copy's matches (None where its re-scan failed), from `run_batch` calls of at most `chunk_bytes`
    each, a file's original (when no baseline is known yet) and its copies in the same call; the originals'
    matches go into `baselines`. A chunk whose call fails is split in halves and tried again; a file whose
    own call fails leaves its fix-its unchecked, saying why, and the other files are still verified."""
    found: list[list[AstGrepMatch] | None] = [None] * len(round_texts)
    for lang, units in _units(jobs, round_texts, baselines, recount).items():
        pending = _chunks(units, chunk_bytes)
        while pending:
            chunk = pending.pop(0)
            batch: list[str] = []
            for u in chunk:
                batch += [jobs[u.job].text] if u.original else []
                batch += [round_texts[i].new_text for i in u.copies]
            try:
                results = run_batch(lang, batch)
            except SgToolsError as exc:
                if len(chunk) > 1:
                    pending[:0] = [chunk[:len(chunk) // 2], chunk[len(chunk) // 2:]]
                    continue
                # The findings stand without verification; a failed re-scan must not fail the scan.
                for i in chunk[0].copies:
                    for m in round_texts[i].members:
                        _unchecked(m.fixit, f"the verification scan failed: {exc.message}")
                continue
            at = 0
            for u in chunk:
                if u.original:
                    baselines.setdefault(u.job, results[at])  # a snippet's own scan stays its baseline
                    at += 1
                for i in u.copies:
                    found[i] = results[at]
                    at += 1
    return found
