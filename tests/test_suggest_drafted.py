"""suggest_rule with the caller's own draft (`draft_rule`, drafted.py): the agent drafts, the tool proves. A draft
is offered first only when real ast-grep finds it flags every invalid example and no valid one; otherwise it is
not offered and the answer says why, and the generaliser's candidates are the answer as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sgtools.core import yamlio
from sgtools.core.errors import BadInput
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import drafted
from sgtools.workflows.suggest.service import suggest_rule

INVALID = ["r = requests.get(url)", "requests.get(API, headers=h)"]
VALID = ["r = requests.get(url, timeout=5)", "requests.get(API, headers=h, timeout=3)"]
REQUEST = "requests.get needs a timeout"
# What an author writes from the request: any call without a `timeout` keyword, however its arguments are written.
DRAFT = """```yaml
rule:
  pattern: requests.get($$$A)
  not:
    has:
      kind: keyword_argument
      stopBy: end
      has: {field: name, regex: ^timeout$}
```"""


def test_a_proven_draft_is_offered_first_with_the_callers_words(ws: Workspace, engine: Engine) -> None:
    (ws.root / "app.py").write_text("import requests\nrequests.get(u, verify=False)\nrequests.get(u, timeout=1)\n",
                                    encoding="utf-8")
    result = suggest_rule(ws, engine, "python", INVALID, VALID, request=REQUEST, draft_rule=DRAFT, rule_id="timeout")
    assert result["success"] is True
    top = result["candidates"][0]
    assert top["form"].startswith("your draft") and "Drafted by you" in top["why"], top
    doc = yamlio.load_one(top["yaml"])
    assert doc["id"] == "timeout" and doc["message"] == REQUEST and doc["rule"]["pattern"] == "requests.get($$$A)"
    assert top["checked"] == {"invalid": INVALID, "valid": VALID}
    assert len(result["candidates"]) == 3 and not any(c["form"].startswith("your draft")
                                                       for c in result["candidates"][1:])
    # The workspace proof runs the draft too: the one call without a timeout on this project.
    assert top["proof"]["flags"] == 1 and top["proof"]["places"] == ["app.py:2: requests.get(u, verify=False)"]


def test_without_a_draft_nothing_changes(ws: Workspace, engine: Engine) -> None:
    plain = suggest_rule(ws, engine, "python", INVALID, VALID, request=REQUEST)
    drafted_ = suggest_rule(ws, engine, "python", INVALID, VALID, request=REQUEST, draft_rule=DRAFT)
    assert [c["yaml"] for c in drafted_["candidates"][1:]] == [c["yaml"] for c in plain["candidates"][:2]]


@pytest.mark.parametrize(("draft", "reason"), [
    ("rule:\n  pattern: requests.get($$$A)\n", "flags valid_examples[0, 1]"),
    ("rule:\n  pattern: requests.get($A, timeout=$T)\n", "misses invalid_examples[0, 1] and flags valid_examples[0]"),
    ("rule: {kind: no_such_kind}\n", "ast-grep refuses it (Kind `no_such_kind` is invalid)"),
    ("rule: {kind: call, not: {has: {field: arguments}}}\n",
     "ast-grep refuses it (Rule must have one positive matcher)"),
    ("rule: {kind: call, regex: '(?<=x)y'}\n", "ast-grep refuses it (regex parse error"),
    ("nonsense: [", "it is not YAML"),
    ("just words, no rule", "it has no `rule:` mapping"),
    ("```yaml\nmessage: hi\n```", "it has no `rule:` mapping"),
])
def test_a_draft_that_fails_is_not_offered_and_the_answer_says_why(ws: Workspace, engine: Engine, draft: str,
                                                                    reason: str) -> None:
    result = suggest_rule(ws, engine, "python", INVALID, VALID, request=REQUEST, draft_rule=draft)
    assert result["success"] is True and not any(c["form"].startswith("your draft") for c in result["candidates"])
    assert result["warnings"][0].startswith("The rule drafted by you is not offered: " + reason), result["warnings"]


def test_a_draft_answers_where_the_generaliser_has_no_rule(ws: Workspace, engine: Engine) -> None:
    # Two comments the generaliser cannot tell apart by any form it writes; the author's regex can.
    invalid, valid = ["x = 1  # TODO fix later", "y()  # TODO: remove"], ["x = 1  # done", "y()  # todo list app"]
    alone = suggest_rule(ws, engine, "python", invalid, valid)
    draft = "rule:\n  kind: comment\n  regex: '^#\\s*TODO\\b'\n"
    result = suggest_rule(ws, engine, "python", invalid, valid, draft_rule=draft)
    assert result["success"] is True and result["candidates"][0]["form"].startswith("your draft")
    assert "explanation" not in result
    if not alone["success"]:  # the case this test is for; the generaliser may learn it, the draft still leads
        assert len(result["candidates"]) == 1


def test_the_request_scope_is_added_to_the_draft_as_to_every_candidate(ws: Workspace, engine: Engine) -> None:
    result = suggest_rule(ws, engine, "python", INVALID, VALID, request="in library code, " + REQUEST,
                          draft_rule=DRAFT)
    top = result["candidates"][0]
    assert top["form"].startswith("your draft") and "ignores" in yamlio.load_one(top["yaml"])
    assert "leaves out test code" in top["scope"]


def test_only_the_rule_keys_of_a_draft_are_kept() -> None:
    body = drafted.read("id: x\nlanguage: go\nfix: bad\nfiles: ['../**']\nrule: {pattern: f()}\nconstraints: {}\n")
    assert body == {"rule": {"pattern": "f()"}, "constraints": {}}


@pytest.mark.parametrize("bad", [12, "", "   ", ["rule: {pattern: x}"]])
def test_a_draft_that_is_not_text_is_bad_input(ws: Workspace, engine: Engine, bad: object) -> None:
    with pytest.raises(BadInput, match="draft_rule must be an ast-grep rule as YAML text"):
        suggest_rule(ws, engine, "python", INVALID, VALID, draft_rule=bad)  # type: ignore[arg-type]


def test_a_draft_over_the_rule_size_limit_is_bad_input(ws: Workspace, engine: Engine) -> None:
    big = "rule: {pattern: f()}\n" + "#" * ws.settings.max_rule_bytes
    with pytest.raises(BadInput, match="draft_rule is over"):
        suggest_rule(ws, engine, "python", INVALID, VALID, draft_rule=big)


def test_the_prompt_holds_only_what_suggest_rule_was_given() -> None:
    asked = drafted.prompt("python", INVALID, VALID, REQUEST)
    assert asked.system == drafted.SYSTEM and REQUEST in asked.user
    assert all(f"```python\n{code}\n```" in asked.user for code in [*INVALID, *VALID])
    assert "The developer's request" not in drafted.prompt("python", INVALID, VALID, None).user


def test_the_cli_proves_a_draft_from_stdin(tmp_path: Path) -> None:
    args = [sys.executable, "-m", "sgtools", "rule", "suggest", "--root", str(tmp_path), "-l", "python", "--json",
            "--request", REQUEST, "--draft", "-"]
    for code in INVALID:
        args += ["--invalid", code]
    for code in VALID:
        args += ["--valid", code]
    done = subprocess.run(args, input=DRAFT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    top = json.loads(done.stdout)["candidates"][0]
    assert top["form"].startswith("your draft"), top


def test_a_field_with_nothing_to_match_is_mended_and_said(ws: Workspace, engine: Engine) -> None:
    """ast-grep refuses `has: {field: receiver}` alone ("Rule must have one positive matcher"), a mistake drafts
    make for "has no receiver": the field gets `regex: [\\s\\S]` (it is there), proven again, and the answer says so."""
    draft = "rule:\n  kind: call\n  has: {field: method, regex: ^double$}\n  not:\n    has: {field: receiver}\n"
    result = suggest_rule(ws, engine, "ruby", ['let(:repo) { double("Repo") }', "double(:client, get: 1)"],
                          ['let(:repo) { instance_double("Repo") }', "RSpec::Mocks.double(:x)"], draft_rule=draft)
    top = result["candidates"][0]
    assert top["form"].startswith("your draft") and "nothing to match" in top["why"], result["warnings"]
    assert yamlio.load_one(top["yaml"])["rule"]["not"]["has"] == {"field": "receiver", "regex": drafted.ANY_TEXT}
    assert drafted._field_matched({"rule": {"kind": "call"}}) is None


def test_the_drafting_guidance_says_what_ast_grep_does(engine: Engine) -> None:
    """drafted.SYSTEM's facts, checked on the real binary: a regex searches the text (anchors make it whole), and a
    `field` alone matches nothing (refused)."""
    from sgtools.workflows.suggest.verify import run_rules

    search, whole, bare = run_rules(engine, "python", "x.py", [
        {"rule": {"kind": "identifier", "regex": "bc"}}, {"rule": {"kind": "identifier", "regex": "^bc$"}},
        {"rule": {"kind": "call", "has": {"field": "function"}}}], ["abcd = 1"])
    assert search.hits[0] and not whole.hits[0] and bare.refused and "positive matcher" in bare.why
    said = " ".join(drafted.SYSTEM.split())
    assert "searches the node's text" in said and "a field picks, it does not match" in said


def test_the_cli_prints_the_drafting_prompt_for_a_model_of_the_users(tmp_path: Path) -> None:
    """`--prompt`: what a model needs to draft the rule, to pipe into one; its answer comes back with `--draft -`."""
    args = [sys.executable, "-m", "sgtools", "rule", "suggest", "--root", str(tmp_path), "-l", "python",
            "--request", REQUEST, "--invalid", INVALID[0], "--valid", VALID[0], "--prompt"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(drafted.SYSTEM) and f"The developer's request: {REQUEST}" in done.stdout
    assert f"```python\n{INVALID[0]}\n```" in done.stdout and f"```python\n{VALID[0]}\n```" in done.stdout
    as_json = subprocess.run([*args, "--json"], capture_output=True, text=True, timeout=60, check=False)
    assert json.loads(as_json.stdout)["system"] == drafted.SYSTEM
