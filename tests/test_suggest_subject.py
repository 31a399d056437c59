"""suggest_rule keeps the call the invalid examples make and says what the request says it is made on, where it is
passed (subject.py, issue 29): the request's subject in any case and inside a longer name, the others of the list
it is written in, not a word of code the request writes nor a keyword the argument happens to hold. Real ast-grep,
real files in a temp workspace; each top candidate judged by plain ast-grep on code the examples do not show."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests.test_suggest_shapes import Case, check_case

CASES = {
    "a call by its name with the subject the request names passed to it": Case(
        "`subprocess.run` of pandoc or latexmk (the list's other name too, a path ending in the name, any case); "
        "not `subprocess.run` of another program, nor the call the request says to use",
        "python",
        ['subprocess.run(["pandoc", src, "-o", out])', 'subprocess.run(["pandoc", "--version"])'],
        ['run_checked(["pandoc", src, "-o", out])', 'subprocess.run(["git", "status"])'],
        ['subprocess.run(["latexmk", "-pdf", main_tex])', "subprocess.run([PANDOC_BIN, src])",
         'result = subprocess.run(["/usr/bin/Pandoc", "-s", page], capture_output=True)'],
        ['subprocess.run(["make", "html"])', 'run_checked(["latexmk", "-pdf"])', 'subprocess.run(["git", "log"])'],
        request="run pandoc and latexmk through run_checked, so a failed conversion stops the build",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_call_by_its_subject(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])


_SEEDED = """
import json, sys, tempfile
from pathlib import Path
from sgtools.engine.process import Engine
from sgtools.workflows.suggest import subject
from sgtools.workflows.suggest.tree import read_examples
with tempfile.TemporaryDirectory() as t:
    trees = read_examples(Engine(), Path(t), "ruby", ["expect(Mailer).to receive(:deliver_later)",
                                                      "allow(Notifier).to receive(:deliver_later).and_return(nil)"])
print(json.dumps([c.body for c in subject.subject_forms(
    "in specs, don't mock deliver_later with receive, check have_enqueued_mail", trees, "ruby", 0)]))
"""


def test_the_same_call_whatever_the_hash_seed() -> None:
    """Two calls pass the subject at one place (`to` and the `receive(...)` it is given): the answer is the first
    in the example's order in every process, not the one a set's hash order happens to give (it differed between
    PYTHONHASHSEED=0 and 1 before)."""
    answers = {subprocess.run([sys.executable, "-c", _SEEDED], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in range(4)}
    assert len(answers) == 1, answers
    assert '"regex": "^to$"' in answers.pop()
