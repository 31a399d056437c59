"""One door for checking texts under one rule file (issue 32 part 3): `TextChecker` chooses the warm engine or a
spawned `ast-grep scan`, falls back from one to the other, and keeps the bookkeeping of which path served and
why; callers ask it for matches (`scan` for a snippet, `scan_many` for a pending change's documents, `rescan`
for fix-it verification and rule examples) and never touch the warm engine themselves.

The warm answers equal the spawned ones by construction (scan/warmscan.py says how); what the warm engine
cannot answer goes to the spawn path inside these calls, and `record` tells server_info which path served.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.engine.texts import scan_texts
from sgtools.engine.warm import WarmSpec, WarmUnavailable
from sgtools.project.config import ProjectConfig
from sgtools.rules.ruleset import Rule
from sgtools.scan import missing
from sgtools.scan.rulefiles import missing_counter
from sgtools.scan.warmscan import WarmRules, checked_scan, warm_matches, warm_spec

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch


class TextChecker:
    """Texts checked with `rules_path` (holding `rules` and the parse-error rule of `language`) as ast-grep
    would check a file named `file_name` under the config `config` (`project`: that config loaded, None for
    none), ast-grep running in `cwd`. `warm=False` keeps every call on the spawn path (a path scan's fix-its)."""

    def __init__(self, engine: Engine, *, config: Path | str, cwd: Path, rules_path: Path, file_name: str,
                 language: str, rules: Sequence[Rule], project: ProjectConfig | None, warm: bool = True) -> None:
        self.engine = engine
        self.config = config
        self.cwd = cwd
        self.rules_path = rules_path
        self.file_name = file_name
        self.language = language
        self.rules = rules
        self.fell_back: list[str] = []  # why a call of this checker left the warm path, first reason first
        self._warm: tuple[WarmSpec, WarmRules] | None = None
        self._counted: dict[str, int | None] | None = None  # MISSING-token counts of the warm scans (`keep_counts`)
        self._baselines: dict[str, bool] = {}  # whether `scan`'s answer for a text holds its parse errors
        if warm and engine.warm is not None and (project is not None or str(config) == NO_CONFIG):
            self._warm = warm_spec(engine, project, rules, rules_path, file_name, language)
            self._counted = {}

    @property
    def warm(self) -> bool:
        """Whether these texts can be answered by the warm engine."""
        return self._warm is not None

    def scan(self, code: str, rules_by_id: Mapping[str, Rule]) -> list[AstGrepMatch]:
        """`code`'s matches of the rules in `rules_by_id`, labels included, as `ast-grep scan --stdin` prints
        them, and its parse errors (a warm scan may leave them out: `baseline`)."""
        if self._warm is None:
            self.fell_back.append("not warm")
        else:
            scoped = self._warm[1].scoped  # the snippet's document without verification's rules
            clean: set[str] = set()
            many, why = warm_matches(self.engine, self._warm[0], self._warm[1], [code], [rules_by_id], self._counted,
                                     clean if scoped else None)
            if many is not None and many[0] is not None:
                self._baselines[code] = not scoped or code in clean
                return many[0]
            self.fell_back.append(why or "the warm engine gave no answer")
        return self._spawned_stdin(code)

    def scan_many(self, codes: Sequence[str], rules_by_id: Sequence[Mapping[str, Rule]],
                  ) -> tuple[list[list[AstGrepMatch] | None], str | None]:
        """The warm answers for several documents in one round: per text its matches of `rules_by_id[i]`, or
        None for a text the caller scans on the spawn path (as files, where globs apply); and why one was
        left, if one was."""
        if self._warm is None:
            return [None] * len(codes), f"{self.language} is not served by the warm engine in this project"
        found, why = warm_matches(self.engine, self._warm[0], self._warm[1], codes, rules_by_id)
        return (found if found is not None else [None] * len(codes)), why

    def baseline(self, code: str, matches: list[AstGrepMatch]) -> list[AstGrepMatch] | None:
        """Fix-it verification's baseline of `code` (fixits/verify.py `VerifyJob`): `scan`'s `matches`, unless
        they came from a warm document without the parse-error rule for a text that may have parse errors; then
        None, and verification scans the text again beside its copies (only when it has fix-its to check)."""
        return matches if self._baselines.get(code, True) else None

    def keep_counts(self) -> bool:
        """Whether the MISSING-token count the warm scans find in each text is kept (the counting rule is in every
        warm document), so `count_missing` of a text already scanned costs no engine call: whether the re-scans
        are warm (fixits/verify.py's `counted_by_rescan`)."""
        return self._warm is not None and self.engine.warm is not None

    def counted(self, text: str) -> bool:
        """Whether `text`'s MISSING-token count is known from a warm scan of it (`scan` keeps the snippet's), so
        fix-it verification need not scan it again to count (fixits/verify.py's `VerifyJob.counted`)."""
        return self._counted is not None and text in self._counted

    def rescan(self, _language: str, texts: Sequence[str]) -> list[list[AstGrepMatch]]:
        """Every rule's matches in each text, without labels (fix-it verification, rule examples): warm when it
        can, else (and after a warm failure, recorded in `fell_back`) one spawned scan of the texts as files.
        The signature of fixits/verify.py's `BatchRunner`."""
        if self._warm is not None and self.engine.warm is not None:
            try:
                return checked_scan(self.engine, self._warm[0], self._warm[1], texts, self._counted)
            except WarmUnavailable as exc:
                self.fell_back.append(exc.reason)
        return scan_texts(self.engine, self.config, self.rules_path, self.file_name, texts)

    def count_missing(self, language: str, text: str) -> int | None:
        """Tree-sitter's MISSING tokens in `text` exactly as the spawn path counts them (scan/rulefiles.py
        `missing_counter`, whose limits apply): from the warm engine's counting rule (scan/missing.py) when it can
        tell, else (recorded in `fell_back`) from a spawned CST dump. The signature of fixits/verify.py's
        `MissingCounter`."""
        spawned = missing_counter(self.engine, self.cwd)
        if (self._warm is None or self.engine.warm is None or language != self.language or "\0" in text
                or not text.strip() or len(text.encode("utf-8")) > self.engine.settings.max_arg_bytes):
            return spawned(language, text)  # the spawn path's own answer, None included
        found: int | None = None
        if self._counted is not None and text in self._counted:
            found = self._counted[text]  # counted by its re-scan (`keep_counts`)
        elif missing.countable(language, text):
            try:
                found = missing.count(self.engine.warm.scan(self._warm[0], [text])[0])
            except WarmUnavailable as exc:
                self.fell_back.append(exc.reason)
                return spawned(language, text)
        if found is None:
            self.fell_back.append("a MISSING-token count the warm engine cannot tell (scan/missing.py)")
            return spawned(language, text)
        return found

    def record(self) -> None:
        """Tell the warm engine's statistics (server_info) which path served this check, and why not warm."""
        if self.engine.warm is not None:
            reason = self.fell_back[0] if self.fell_back else None
            self.engine.warm.note("spawn" if reason else "warm", reason)

    def _spawned_stdin(self, code: str) -> list[AstGrepMatch]:
        return self.engine.scan(config=self.config, cwd=self.cwd, rule_file=self.rules_path,
                                stdin=code.encode("utf-8"))
