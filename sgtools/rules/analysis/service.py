"""The analysis run: self-match every pattern, check examples, diagnose refusals, verify repairs, in two
batched engine calls for any number of rules (one to find problems, one to verify candidate repairs).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sgtools.contracts.rules import Finding
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.rules.analysis import cost, kinds, refused, repairs, selfmatch, walk
from sgtools.rules.analysis import findings as F
from sgtools.rules.analysis.contexts import curated
from sgtools.rules.analysis.item import Item
from sgtools.rules.analysis.repairs import Candidate
from sgtools.rules.analysis.runner import Batch, Outcome, run
from sgtools.rules.analysis.selfmatch import Probe, Reading

_MAX_COMBINED = 24  # two-fault candidates tried per rule when no single mutation passes the examples


class Trial:
    """One candidate repair and what must hold for it to count as verified."""

    __slots__ = ("attach", "cand", "item", "must_fire", "rank", "rule_id")

    def __init__(self, item: int, cand: Candidate, rule_id: str, must_fire: dict[str, str], attach: Finding,
                 rank: int = 0) -> None:
        self.item = item
        self.cand = cand
        self.rule_id = rule_id
        self.must_fire = must_fire  # files (name -> text) the repaired pattern must match, every one
        self.attach = attach  # the finding the repair answers
        self.rank = rank  # preference before size: the order of the contexts (commonest code first)


def _snip(text: str, limit: int = 70) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _examples(batch: Batch, key: str, item: Item, language: str | None = None) -> tuple[list[str], list[str]]:
    """The item's examples as files of `language` (default its own): a repair in another grammar (typescript for
    a javascript draft) is checked on files that grammar reads."""
    lang = language or item.language or ""
    return ([batch.add_file(f"{key}-valid{k}", lang, c) for k, c in enumerate(item.valid)],
            [batch.add_file(f"{key}-invalid{k}", lang, c) for k, c in enumerate(item.invalid)])


def _example_results(outcome: Outcome, rule_id: str, valid: list[str], invalid: list[str]) -> tuple[
        list[int], list[int]]:
    """(indexes of valid examples reported, indexes of invalid examples missed)."""
    return ([k for k, f in enumerate(valid) if outcome.fired(rule_id, f)],
            [k for k, f in enumerate(invalid) if not outcome.fired(rule_id, f)])


class Analysis:
    def __init__(self, engine: Engine, items: list[Item], config: Path | str, cwd: Path) -> None:
        self.engine, self.items, self.config, self.cwd = engine, items, config, cwd
        self.out: list[list[Finding]] = [[] for _ in items]
        # Per rule: one huge draft is capped, while a project of many ordinary rules is analysed whole.
        self.limit = engine.settings.analysis_max_engine_calls
        self.unplanned: dict[int, int] = {}
        self.examples_passed: dict[int, bool] = {}
        self.trials: list[Trial] = []

    def run(self) -> list[list[Finding]]:
        batch = Batch()
        probes: dict[int, list[tuple[walk.Path, Probe]]] = {}
        example_files: dict[int, tuple[list[str], list[str]]] = {}
        for i, item in enumerate(self.items):
            if item.language is None:
                continue
            # A bare metavariable (`pattern: $F`, usually beside `kind` or constraints) matches any node: there is
            # nothing to self-match, and ast-grep refuses it alone (which would cost a per-rule fallback).
            patterns = [(p, v) for p, v in walk.patterns(item.doc)
                        if not walk.METAVAR.fullmatch(walk.pattern_text(v).strip())]
            planned = patterns[:max(0, self.limit)]
            self.unplanned[i] = len(patterns) - len(planned)  # each probe costs files in the batch and a dump
            probes[i] = [(path, selfmatch.plan(batch, f"r{i}p{j}", item.language, value))
                         for j, (path, value) in enumerate(planned)]
            batch.add_rule(f"r{i}", {**item.doc, "language": item.language})
            example_files[i] = _examples(batch, f"r{i}", item)
        outcome = run(self.engine, batch, config=self.config)
        for i in probes:
            self._item(i, outcome, probes[i], example_files[i])
        self._verify()
        return [F.sort_findings(f) for f in self.out]

    # ---- phase 1: problems -----------------------------------------------------------------------

    def _item(self, i: int, outcome: Outcome, probes: list[tuple[walk.Path, Probe]],
              files: tuple[list[str], list[str]]) -> None:
        item = self.items[i]
        assert item.language is not None
        reason = outcome.refused.get(f"r{i}")
        if reason is not None:
            code, cause, cands = refused.diagnose(self.engine, item.doc, item.language, reason,
                                                  item.valid + item.invalid, self.cwd)
            found = F.finding(code, F.ERROR, cands[0].path if cands else "rule", cause)
            self.out[i].append(found)
            self._try(i, cands, found, self._refused_checks(i, cands))
            return
        full = any(_example_results(outcome, f"r{i}", *files))  # the misread cause is wanted only then
        self.examples_passed[i] = not full
        states, skipped = self._states(i, outcome, probes, full)
        if skipped:
            limit = self.engine.settings.analysis_max_engine_calls
            total = len(probes) + self.unplanned.get(i, 0)
            self.out[i].append(F.finding(F.NOT_ANALYSED, F.INFO, "rule", (
                f"{skipped} of {total} patterns were not analysed: that would take more than {limit} "
                "ast-grep calls (SGTOOLS_ANALYSIS_MAX_ENGINE_CALLS). The rule itself was still checked and "
                "tested; split it into smaller rules to have every pattern analysed.")))
        dead_paths = {p for p, (alive, _r) in states.items() if not alive}
        rule_dead = walk.dead(item.doc.get("rule"), lambda p: p in dead_paths)
        pattern_cands: list[tuple[Candidate, dict[str, str]]] = []
        for path, probe in probes:
            if path not in states or (states[path][0] and not states[path][1]):
                continue
            alive, readings = states[path]
            found, pcands = self._misread_pattern(i, path, probe, readings, rule_dead, alive)
            self.out[i].append(found)
            pattern_cands += pcands
            if not (item.valid or item.invalid):
                self._try(i, [c for c, _ in pcands], found, [m for _, m in pcands], ranked=True)
        self._regex_info(i)
        self.out[i] += cost.quadratic_findings(item.doc)
        if item.valid or item.invalid:
            self._examples_failed(i, outcome, files, pattern_cands)

    def _states(self, i: int, outcome: Outcome, probes: list[tuple[walk.Path, Probe]],
                full: bool) -> tuple[dict[walk.Path, tuple[bool, list[Reading]]], int]:
        """Each probed pattern's (alive, readings) within the engine-call budget; how many were skipped."""
        states: dict[walk.Path, tuple[bool, list[Reading]]] = {}
        skipped = self.unplanned.get(i, 0)
        calls_left = self.limit
        for p, probe in probes:
            if probe.rule_id in outcome.refused:
                continue
            cost = len(probe.instances) if full else 1  # syntax-tree dumps, one ast-grep call each
            if cost > calls_left:
                skipped += 1
                continue
            calls_left -= cost
            states[p] = _state(probe, probe.readings(outcome, self.engine, self.cwd, full=full))
        return states, skipped

    def _misread_pattern(self, i: int, path: walk.Path, probe: Probe, readings: list[Reading], rule_dead: bool,
                         alive: bool) -> tuple[Finding, list[tuple[Candidate, dict[str, str]]]]:
        item = self.items[i]
        lang = probe.language
        diag = selfmatch.diagnose(self.engine, probe, readings, self.cwd)
        text = walk.pattern_text(probe.value)
        where = walk.show(path)
        read = f"as a `{diag.read_as}`" if diag.read_as else "as something else"
        if diag.read_broken:
            read += " with ERROR nodes (it is not complete code)"
        if alive:
            matched = ", ".join(dict.fromkeys(r.inst.context.name for r in readings if r.fired and r.clean))
            cause = (f"ast-grep reads the pattern `{_snip(text)}` {read}: it matches that text only in "
                     f"{matched}, while in {diag.where} the same text parses as `{diag.code_kind}`, which the pattern "
                     "never matches. If that is what you mean, give the pattern its context.")
            # Another reading of the same text exists in clean code; which one the author means only examples
            # tell (they turn it into an example failure with this cause): on its own it is a note.
            severity, code = F.INFO, F.PATTERN_MISREAD
        else:
            if diag.code_kind and diag.code_kind != diag.read_as:
                cause = (f"ast-grep reads the pattern `{_snip(text)}` on its own {read}, but in {lang} code "
                         f"({diag.where}) the same text parses as `{diag.code_kind}`, so the pattern never matches it")
            else:
                tried = ", ".join(dict.fromkeys(r.inst.context.name for r in readings))
                cause = (f"the pattern `{_snip(text)}` matches none of the code shaped like it (ast-grep reads "
                         f"it {read}; tried {tried})")
            if rule_dead and walk.required(item.doc, path):
                severity, code, cause = F.ERROR, F.PATTERN_NEVER_MATCHES, cause + ", and the rule can never fire."
            else:
                severity, code = F.WARNING, F.DEAD_BRANCH
                cause += "; this part of the rule is dead (it never contributes a match)."
        if not curated(lang):  # only a whole-file context to try: not enough to be sure
            severity = F.INFO
        elif severity == F.ERROR and item.invalid and self.examples_passed.get(i):
            # The rule reports every invalid example: real code beats the instances, so it can fire after all.
            severity, cause = F.WARNING, cause.replace(", and the rule can never fire.", "; yet the rule reports "
                                                       "its invalid examples, so check that they are what you mean.")
        found = F.finding(code, severity, where, cause)
        cands = [(Candidate(walk.replaced(item.doc, path, value),
                            f"give the pattern its context and a selector ({why})", where), must)
                 for value, why, must in diag.candidates]
        return found, cands

    def _regex_info(self, i: int) -> None:
        for path, node in walk.rule_objects(self.items[i].doc):
            regex = node.get("regex")
            if isinstance(regex, str) and repairs.unanchored_words(regex):
                self.out[i].append(F.finding(
                    F.UNANCHORED_REGEX, F.INFO, walk.show((*path, "regex")),
                    f"`regex: {regex}` is searched anywhere inside the node's text, so it also matches longer "
                    f"names (`{regex.split('|')[0]}uate`); write `^({regex})$` to match whole names only."))

    def _examples_failed(self, i: int, outcome: Outcome, files: tuple[list[str], list[str]],
                         pattern_cands: list[tuple[Candidate, dict[str, str]]]) -> None:
        item = self.items[i]
        assert item.language is not None
        noisy, missed = _example_results(outcome, f"r{i}", *files)
        if not noisy and not missed:
            return
        first: Finding | None = None
        for k in missed:
            found = F.finding(F.EXAMPLE_NOT_MATCHED, F.ERROR, "rule",
                              f"invalid_examples[{k}] `{_snip(item.invalid[k])}` is not reported by the rule.")
            self.out[i].append(found)
            first = first or found
        for k in noisy:
            hits = outcome.hits.get((f"r{i}", files[0][k]))
            shown = str(hits[0].get("text", "")) if hits else ""
            found = F.finding(F.EXAMPLE_MATCHED, F.ERROR, "rule",
                              f"valid_examples[{k}] `{_snip(item.valid[k])}` is reported (at "
                              f"`{_snip(shown)}`): the rule is too broad.")
            self.out[i].append(found)
            first = first or found
        assert first is not None
        causes = [f["message"] for f in self.out[i] if f["code"] in (F.PATTERN_MISREAD, F.UNANCHORED_REGEX)]
        if causes:
            first["message"] += " Likely cause: " + " ".join(causes)
        known = kinds.known_kinds(self.engine, item.language, item.valid + item.invalid, self.cwd)
        singles = ([c for c, _ in pattern_cands] + repairs.mutations(item.doc, item.language)
                   + repairs.wider_kinds(item.doc, known))
        self._try(i, singles, first, [{} for _ in singles])
        pairs = [p for c in singles for p in repairs.combined(c, singles, item.language)][:_MAX_COMBINED]
        self._try(i, pairs, first, [{} for _ in pairs])

    def _refused_checks(self, i: int, cands: list[Candidate]) -> list[dict[str, str]]:
        return [{} for _ in cands]

    def _try(self, i: int, cands: list[Candidate], attach: Finding, must: list[dict[str, str]],
             ranked: bool = False) -> None:
        for n, (cand, must_fire) in enumerate(zip(cands, must, strict=True)):
            self.trials.append(Trial(i, cand, f"c{len(self.trials)}", must_fire, attach, n if ranked else 0))

    # ---- phase 2: verify candidate repairs ---------------------------------------------------------

    def _verify(self) -> None:
        if not self.trials:
            return
        batch = Batch()
        files: dict[tuple[int, str], tuple[list[str], list[str]]] = {}
        wider: dict[str, list[Probe]] = {}
        for t in self.trials:
            item = self.items[t.item]
            lang = str(t.cand.doc.get("language") or item.language)
            batch.add_rule(t.rule_id, t.cand.doc)
            if t.must_fire:
                value = walk.get_at(t.cand.doc, _path_of(t.cand, item.doc))
                batch.add_rule(f"{t.rule_id}-self", {"language": lang, "rule": {"pattern": value}})
                batch.files.update(t.must_fire)
            if (t.item, lang) not in files:
                files[(t.item, lang)] = _examples(batch, f"r{t.item}-{lang}", item, lang)
            if lang != item.language and not (item.valid or item.invalid):
                wider[t.rule_id] = [selfmatch.plan(batch, f"{t.rule_id}w{j}", lang, v)
                                    for j, (_p, v) in enumerate(walk.patterns(t.cand.doc))]
        outcome = run(self.engine, batch, config=self.config)
        best: dict[int, Trial] = {}
        for t in self.trials:
            lang = str(t.cand.doc.get("language") or self.items[t.item].language)
            if not self._passes(t, outcome, files[(t.item, lang)], wider.get(t.rule_id)):
                continue
            if t.item not in best or (t.rank, _size(t)) < (best[t.item].rank, _size(best[t.item])):
                best[t.item] = t
        for i, t in best.items():
            text = repairs.to_yaml(t.cand.doc)
            for found in self.out[i]:
                if found["severity"] in (F.ERROR, F.WARNING) and "repair" not in found:
                    found["repair"] = text
            t.attach["message"] += f" Verified repair: {t.cand.why}."

    def _passes(self, t: Trial, outcome: Outcome, files: tuple[list[str], list[str]],
                wider: list[Probe] | None) -> bool:
        item = self.items[t.item]
        if t.rule_id in outcome.refused:
            return False
        if item.valid or item.invalid:
            noisy, missed = _example_results(outcome, t.rule_id, *files)
            return not noisy and not missed
        if t.must_fire and (f"{t.rule_id}-self" in outcome.refused
                            or not all(outcome.fired(f"{t.rule_id}-self", f) for f in t.must_fire)):
            return False
        if wider is not None:
            return all(p.alive(outcome) for p in wider)
        return bool(t.must_fire) or _compiles_only(t)


def _state(probe: Probe, readings: list[Reading]) -> tuple[bool, list[Reading]]:
    """(alive: it fired on clean code, the readings when something is wrong: dead, or clean code missed)."""
    alive = any(r.fired and r.clean for r in readings)
    missed = [r for r in readings if r.clean and r.kind and not r.fired]
    return alive, (readings if not alive or missed else [])


def _size(t: Trial) -> int:
    """How big a repair is (the grammar's name does not count: typescript is as good as tsx)."""
    return len(repairs.to_yaml(t.cand.doc)) - len(str(t.cand.doc.get("language", "")))


def _compiles_only(t: Trial) -> bool:
    """A kind or metavariable repair without examples: compiling is what ast-grep can confirm."""
    return t.attach["code"] in (F.UNKNOWN_KIND, F.UNDEFINED_METAVARIABLE)


def _path_of(cand: Candidate, doc: Mapping[str, Any]) -> walk.Path:
    """The path of the pattern a context repair replaced (the first pattern that differs)."""
    before = dict(walk.patterns(doc))
    for path, value in walk.patterns(cand.doc):
        if before.get(path) != value:
            return path
    return walk.patterns(cand.doc)[0][0]


_CHUNK = 8  # rules per batched scan: one scan runs every rule on every file of its language, a cross product


def analyse_items(engine: Engine, items: list[Item], *, config: Path | str = NO_CONFIG,
                  cwd: Path | None = None) -> list[list[Finding]]:
    """Findings per item, analysed a few rules per batch (two engine calls per batch, plus dumps)."""
    out: list[list[Finding]] = []
    for start in range(0, len(items), _CHUNK):
        out += Analysis(engine, items[start:start + _CHUNK], config, cwd or Path.cwd()).run()
    return out
