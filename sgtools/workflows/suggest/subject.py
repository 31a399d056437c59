"""The call by what the request says it is made on (issue 29): "start ffmpeg and ffprobe with exec.CommandContext",
"never unserialize() request data ($_GET/$_POST/$_COOKIE)". Where every invalid example makes one call (one name)
that passes a word of the request in one argument, that word is the request's subject, not the call: an author
keeps the call as the anchor (`kind` + its name) and says the subject where it is passed, `has: {field: arguments,
has: {nthChild: N, regex: (?i)(ffmpeg|ffprobe)}}`, with the other names of the request's list it is written in, in
any case and as part of a longer name (`t.FFmpegPath`, `ffmpegBinary`): `exec.Command("git", ...)` is no such call,
whatever the examples happen to pass beside it. Verified on the examples like any candidate, and before the call by
its name alone (`requested.request_first`), as a call with the arguments the request writes is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sgtools.workflows.suggest import callnames
from sgtools.workflows.suggest.arguments import argument_list, list_items
from sgtools.workflows.suggest.author import call_like
from sgtools.workflows.suggest.candidates import REQUESTED, Candidate
from sgtools.workflows.suggest.contrast import Words
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.required import callee_regex
from sgtools.workflows.suggest.tree import Example, Node, place

_POSITIONS = 3  # the first arguments say what a call works on (a command, a file, a key)
_WORD = re.compile(r"[A-Za-z_]\w{2,}")  # a word of the request long enough to name something (`ffmpeg`, `_POST`)

Passed = tuple[str, int]  # a call's name and the position (from 0) of the argument the subject is passed in


# Code the request writes, a call with its arguments (`assertTrue(a.equals(b))`, `.collect(Collectors.toList())`):
# what it passes is that code's, said by the call (argued.py), not a subject of the request.
_CODE = re.compile(r"[\w.$:>-]*\w\((?:[^()]|\([^()]*\))*\)")


def _subjects(request: str, words: Words) -> list[str]:
    """The request's words that may name a subject: not a plain English word of its prose (contrast.Words), not
    written in a call it writes nor as a member (`.toList`)."""
    prose = _CODE.sub(" ", request)
    return [m.group() for m in _WORD.finditer(prose) if words.of(m.group()) is not None
            and not prose[:m.start()].endswith((".", "::"))]


def _written(word: str, text: str) -> bool:
    """The word is in the text as a name of its own or the start or end of one (`"ffmpeg"`, `$_COOKIE`,
    `ffmpegPath`), not inside another word (`null` of `nullable`)."""
    return re.search(rf"(?i)(?<![A-Za-z]){re.escape(word)}(?![a-z])", text) is not None


def _names(arg: Node) -> list[Node]:
    """The names and the literals' text an argument writes: its named leaves, not its keywords (`async` of an
    `async () => ...` passed)."""
    return [n for n in arg.walk() if n.named and not n.named_children()]


def _passes(example: Example, words: list[str]) -> dict[Passed, tuple[Node, Node, set[str]]]:
    """Per (call name, position), a call of the example passing request words there, its callee and the words."""
    out: dict[Passed, tuple[Node, Node, set[str]]] = {}
    for node in example.nodes():
        callee = callnames.name_of(node) if call_like(node.kind) else None
        args = argument_list(node) if callee is not None else None
        if callee is None or args is None:
            continue
        for i, arg in enumerate(list_items(args)[:_POSITIONS]):
            said = {w for w in words if any(_written(w, n.text) for n in _names(arg))
                    and not _written(w, callee.text)}
            if said and (callee.text, i) not in out:
                out[(callee.text, i)] = (node, callee, said)
    return out


def _listed(words: Words, said: set[str]) -> list[str]:
    """The subjects shown, with the others of the request's list they are written in ("ffmpeg and ffprobe")."""
    families = {words.of(w) for w in said} - {None}
    return sorted(said | {w for f in families if f is not None for w in words.spelled.get(f, ())})


def subject_forms(request: str | None, invalid: Sequence[Example], language: str, start: int) -> list[Candidate]:
    """The call every invalid example makes with the request's subject passed at one place; to be verified."""
    family = Words(request or "")
    words = _subjects(request or "", family)
    if not words or not invalid:
        return []
    found = [_passes(e, words) for e in invalid]
    # In the first example's order among those at one place (the outer call first): the same answer every run.
    shared = sorted((p for p in found[0] if all(p in f for f in found[1:])), key=lambda p: p[1])
    out: list[Candidate] = []
    for name, position in shared[:1]:
        made = [f[(name, position)] for f in found]
        kinds = {(n.kind, c.role) for n, c, _ in made}
        node, callee, _ = made[0]
        args = argument_list(node)
        if len(kinds) != 1 or args is None:
            continue
        said = _listed(family, set().union(*(s for _, _, s in made)))
        called = callnames.by_name(node.kind, callee.role or "", f"^{callee_regex(name, True, language)}$",
                                   language)
        subject = "(^|[^A-Za-z])(?i:" + "|".join(re.escape(w) for w in said) + ")($|[^a-z])"  # as _written
        rule = {"all": [called, {"has": {**place(args), "has": {"nthChild": position + 1, "regex": subject}}}]}
        label = f"{name} on {' / '.join(said)}"
        note = (f"flags every call of {name} whose argument {position + 1} names {' or '.join(said)} (what the "
                "request says it is made on), in any case or inside a longer name; lets through the call made on "
                "anything else, and the subject held in a name that does not say it")
        out.append(Candidate({"rule": rule}, Generalised.written(node, label), REQUESTED, start, note, argued=True))
    return out
