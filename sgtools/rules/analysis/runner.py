"""Batched engine calls for the analyser: many rules against many small files in one `ast-grep scan`.

Each call costs a process start (a few ms); the analyser asks hundreds of small questions (does pattern p
match instance f?), so it writes every file into one private temp dir and every rule into one multi-document
rule file, and reads back which rule fired on which file. One rule ast-grep refuses would abort the whole
call (exit 8), so on failure each rule is compiled alone and the refused ones are left out and named.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sgtools.core import languages
from sgtools.core.errors import SgToolsError
from sgtools.engine import lifecycle
from sgtools.engine.process import NO_CONFIG, Engine, stderr_message
from sgtools.engine.tempdirs import tmp_root

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch

_GLOB_KEYS = ("files", "ignores")
_UNSAFE = re.compile("[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]")


class Batch:
    """Rules (id -> document) and files (name -> text) to run together."""

    __slots__ = ("files", "rules")

    def __init__(self, rules: dict[str, dict[str, Any]] | None = None, files: dict[str, str] | None = None) -> None:
        self.rules: dict[str, dict[str, Any]] = {} if rules is None else rules
        self.files: dict[str, str] = {} if files is None else files

    def add_rule(self, rule_id: str, doc: Mapping[str, Any]) -> str:
        body = {k: v for k, v in doc.items() if k not in _GLOB_KEYS}
        body["id"] = rule_id
        body["severity"] = "hint"  # `off` would never run; the level does not matter here
        self.rules[rule_id] = body
        return rule_id

    def add_file(self, stem: str, language: str, text: str) -> str:
        exts = languages.LANGUAGES[language][1]
        name = f"{stem}.{'sh' if language == 'bash' else exts[0]}"
        self.files[name] = text
        return name


class Outcome:
    __slots__ = ("hits", "refused")

    def __init__(self, hits: dict[tuple[str, str], list[AstGrepMatch]], refused: dict[str, str]) -> None:
        self.hits = hits  # (rule id, file name) -> matches
        self.refused = refused  # rule id -> ast-grep's reason

    def fired(self, rule_id: str, file: str) -> bool:
        return bool(self.hits.get((rule_id, file)))


def _rule_text(doc: Mapping[str, Any]) -> str:
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(doc, ensure_ascii=False, default=str))


def run(engine: Engine, batch: Batch, *, config: Path | str = NO_CONFIG, cwd: Path | None = None) -> Outcome:
    """Every rule of `batch` on every file of its language; refused rules are reported, not raised."""
    outcome = Outcome({}, {})
    if not batch.rules:
        return outcome
    work = Path(tempfile.mkdtemp(prefix="analysis-", dir=tmp_root()))
    try:
        for name, text in batch.files.items():
            (work / name).write_text(text, encoding="utf-8")
        rules = dict(batch.rules)
        for _attempt in range(2):
            try:
                _scan(engine, work, rules, sorted(batch.files), config, outcome)
                return outcome
            except SgToolsError:
                refused = _refused(engine, work, rules, config)
                if not refused:
                    raise
                outcome.refused.update(refused)
                rules = {k: v for k, v in rules.items() if k not in refused}
                if not rules:
                    return outcome
        return outcome
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _scan(engine: Engine, work: Path, rules: Mapping[str, Mapping[str, Any]], names: Sequence[str],
          config: Path | str, outcome: Outcome) -> None:
    rule_file = work / "rules.yml"
    rule_file.write_text("\n---\n".join(_rule_text(d) for d in rules.values()) + "\n", encoding="utf-8")
    if not names:
        result = engine.check_rule(rule_file, config=config, cwd=work)
        if result.returncode != 0:
            raise engine.fail(result, "check the rules")
        return
    found = engine.scan(config=config, cwd=work, rule_file=rule_file, paths=list(names))
    for m in found:
        name = str(m.get("file", "")).removeprefix("./")
        outcome.hits.setdefault((str(m.get("ruleId")), name), []).append(m)


def _refused(engine: Engine, work: Path, rules: Mapping[str, Mapping[str, Any]],
             config: Path | str) -> dict[str, str]:
    """Compile each rule alone (in parallel): the ones ast-grep refuses, with its reason."""
    def check(item: tuple[int, tuple[str, Mapping[str, Any]]]) -> tuple[str, str | None]:
        n, (rule_id, doc) = item
        path = work / f"rule-{n}.yml"
        path.write_text(_rule_text(doc) + "\n", encoding="utf-8")
        result = engine.check_rule(path, config=config, cwd=work)
        if result.returncode == 0:
            return rule_id, None
        headline, causes = stderr_message(result.stderr)
        keep = [c for c in causes if not c.startswith(("Fail to parse yaml as", "error: line"))]
        return rule_id, "; ".join(dict.fromkeys(c.rstrip(". ") for c in keep)) or headline

    from concurrent.futures import ThreadPoolExecutor  # with logging ~20 million instructions: loaded to use

    with ThreadPoolExecutor(max_workers=max(1, engine.settings.rule_check_workers), **lifecycle.pool_args()) as pool:
        results = list(pool.map(check, enumerate(rules.items())))
    return {rid: why for rid, why in results if why is not None}


def refusal(engine: Engine, doc: Mapping[str, Any], *, config: Path | str = NO_CONFIG) -> str | None:
    """ast-grep's reason for refusing one rule document, or None when it compiles."""
    batch = Batch()
    batch.add_rule("r", doc)
    return run(engine, batch, config=config).refused.get("r")
