"""The ceiling of suggest_rule's task (issue 29): rules experienced authors wrote from only what suggest_rule is
given (tests/data/intent_expert.yml; intent_expert_plain.yml with no API fact the input does not show), judged on
the held-out snippets exactly as suggest_rule's top candidate is (`intent_catalogue.judge`), so the figures compare
request by request."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sgtools.core import yamlio
from sgtools.engine.process import Engine
from tests import intent_catalogue as cat

EXPERT_PATH = Path(__file__).resolve().parent / "data" / "intent_expert.yml"
# The same requests, by other authors told to use no fact about libraries, APIs or frameworks that the request and
# the examples do not show: what a generaliser that knows no APIs could reach at best.
PLAIN_PATH = EXPERT_PATH.with_name("intent_expert_plain.yml")
_SCOPES = {"files": "files", "ignores": "ignores", "none": ""}


@dataclass(frozen=True)
class Expert:
    """One author's rule for one request, and the outside facts they say it needed."""

    request: cat.Request
    body: dict[str, Any]
    scope: str
    knowledge: str

    @property
    def used_knowledge(self) -> bool:
        return self.knowledge.strip().lower() not in ("", "none")


def load(path: Path = EXPERT_PATH) -> list[Expert]:
    """Every expert rule of the file, with its request (matched by id)."""
    requests = {r.id: r for r in cat.load_all()}
    entries = yamlio.load_one(path.read_text(encoding="utf-8"))
    return [Expert(requests[e["id"]], {k: e[k] for k in ("rule", "constraints") if k in e},
                   _SCOPES[str(e["scope"])], str(e["knowledge"])) for e in entries]


def right(engine: Engine, expert: Expert) -> bool:
    """Judged as suggest_rule's top candidate is: every held-out instance flagged, no fine snippet, the scope."""
    req = expert.request
    flags = cat.judge(engine, req.language, [expert.body], [*req.held_invalid, *req.held_valid])[0]
    n = len(req.held_invalid)
    return all(flags[:n]) and not any(flags[n:]) and (req.scope is None or expert.scope == req.scope)


def on_examples(engine: Engine, expert: Expert) -> bool:
    """The rule flags both given invalid examples and neither valid one, as its author checked."""
    req = expert.request
    flags = cat.judge(engine, req.language, [expert.body], [*req.invalid, *req.valid])[0]
    return all(flags[:len(req.invalid)]) and not any(flags[len(req.invalid):])
