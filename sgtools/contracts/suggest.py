"""The suggest_rule contract: its arguments and its result (the MCP schemas are derived from these)."""

from typing import NotRequired, Required, TypedDict

from sgtools.contracts.rules import Finding


class FixPair(TypedDict):
    """Code before and after the fix: a `fix` template is inferred from the pairs and verified."""

    before: str
    after: str


class Checked(TypedDict):
    invalid: list[str]
    valid: list[str]


class SuggestArgs(TypedDict, total=False):
    language: Required[str]
    invalid_examples: Required[list[str]]
    valid_examples: list[str]
    path: str
    message: str
    severity: str
    rule_id: str
    fix_examples: list[FixPair]
    max_candidates: int
    request: str
    draft_rule: str


class CandidateProof(TypedDict):
    """One candidate run over the workspace's files of its language (issue 29, part 3)."""

    flags: int  # places it flags
    places: list[str]  # up to three, `path:line: code`
    onlyThis: int  # places no other candidate flags (where the candidates disagree)
    notThis: int  # places another candidate flags and this one does not
    onlyThisPlaces: NotRequired[list[str]]


class WorkspaceProof(TypedDict):
    """How far the workspace proof went: files read (at most fileCap) within secondsCap."""

    files: int  # files of the language within the cap
    read: NotRequired[int]  # of those, the files ast-grep parsed (the rest lack every word the candidates need)
    fileCap: int
    capped: bool  # the workspace has more files of the language than the cap
    secondsCap: float
    complete: bool  # false: stopped at the time cap or failed (see note); no counts then
    seconds: NotRequired[float]
    note: NotRequired[str]


class SuggestedRule(TypedDict):
    yaml: str
    rule_id: str
    why: str
    checked: Checked
    form: str
    analysis: list[Finding]  # the rule analyser's findings (none is an error: those candidates are dropped)
    scope: str  # one line: what else it would flag, what it would let through
    proof: NotRequired[CandidateProof]  # the candidate on the workspace's own code
    fix: NotRequired[str]
    fixChecked: NotRequired[list[FixPair]]
    fixSafety: NotRequired[str]  # `unsafe` for every inferred fix (fixNote says why)
    fixNote: NotRequired[str]


class SuggestResult(TypedDict):
    success: bool
    candidates: list[SuggestedRule]
    explanation: NotRequired[str]
    warnings: list[str]
    proof: NotRequired[WorkspaceProof]
