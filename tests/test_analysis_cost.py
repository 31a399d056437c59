"""The analyser notes the quadratic shape (issue 18): `inside` to the end, then `has` to the end."""

from __future__ import annotations

from sgtools.rules.analysis import findings as F
from sgtools.rules.analysis.cost import quadratic_findings

OLD_MATH_RAND = {"id": "r", "language": "go", "rule": {"kind": "call_expression", "all": [{"inside": {
    "stopBy": "end", "kind": "source_file",
    "has": {"stopBy": "end", "kind": "import_spec", "regex": '"math/rand"'}}}]}}
CHEAP = {"id": "r", "language": "go", "rule": {"kind": "call_expression", "all": [{"inside": {
    "stopBy": "end", "kind": "source_file", "has": {"kind": "import_declaration", "regex": '"math/rand"'}}}]}}


def test_the_old_math_rand_shape_is_flagged_where_it_is() -> None:
    found = quadratic_findings(OLD_MATH_RAND)
    assert [(f["code"], f["severity"], f["path"]) for f in found] == \
        [(F.QUADRATIC_SEARCH, F.INFO, "rule.all[0].inside.has")]
    assert "direct children" in found[0]["message"]


def test_the_cheap_form_and_plain_relations_are_not() -> None:
    assert quadratic_findings(CHEAP) == []
    near = {"rule": {"kind": "x", "inside": {"kind": "source_file", "has": {"stopBy": "end", "kind": "z"}}}}
    assert quadratic_findings(near) == []  # narrow on purpose: only the known shape (inside to the end)
    method = {"rule": {"kind": "x", "inside": {"stopBy": "end", "kind": "method_declaration",
                                               "has": {"stopBy": "end", "kind": "z"}}}}
    assert quadratic_findings(method) == []  # bounded by the method


# Bundled rules that keep the shape on purpose, each reached only by few nodes or last in an ordered `all`, and
# each saying why: the whole-file search is the evidence the rule's warning needs (issue 21). A rule
# added to this list needs its reason here; any other rule with the shape fails the test below.
KNOWN_SEARCHES = {
    # only from `eval` commands (a few per script): is this a bash-completion file (`complete -F` anywhere)?
    "eval-injection-bash": "eval commands only",
    "eval-injection-audit-bash": "eval commands only",
    # only from strcpy/strcat calls whose destination is a struct field: the field's declaration in the file
    "strcpy-strcat-overflow-c": "strcpy/strcat field destinations only, after the function-name check",
    "strcpy-strcat-overflow-audit-c": "strcpy/strcat field destinations only, after the function-name check",
    # the assignment of an unquoted variable from outside input, last, never in Autotools output (binutils'
    # bfd/configure.sh, 530 kB: 2.1 s of CPU with the test suite; about 0.8 s per 170 kB of hand-written shell)
    "unquoted-variable-expansion-bash": "last in its all, not in Autotools output",
    "unquoted-variable-expansion-audit-bash": "last in its all, not in Autotools output",
}


def test_no_bundled_rule_has_the_shape() -> None:
    """Searches of a nearer ancestor (runtime-exec-java: the method; delete-array-mismatch-cpp: the block) are
    bounded by it and not flagged; the known searches above are reached by few nodes."""
    from sgtools.core.bundled import bundled_dir
    from sgtools.core.yamlio import load_all

    docs = [d for p in sorted((bundled_dir() / "rules").rglob("*.yml")) for d in load_all(p.read_text())]
    shaped = {d["id"] for d in docs if quadratic_findings(d)}
    assert docs and shaped - set(KNOWN_SEARCHES) == set()
    assert set(KNOWN_SEARCHES) <= {d["id"] for d in docs}  # a rule renamed or gone leaves the list
