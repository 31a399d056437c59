"""Rule sets and a snippet for the benchmark harness: 20 realistic Python rules, padded with generated ones."""

from __future__ import annotations

from pathlib import Path

SNIPPET = '''import os
import subprocess
import pickle


def load(path, cache={}):
    if path == None:
        return None
    data = pickle.loads(open(path, "rb").read())
    print("loaded", path)
    return data


def run(cmd):
    subprocess.call(cmd, shell=True)
    return eval(cmd)


class Store:
    def __init__(self):
        self.items = []

    def add(self, item):
        try:
            self.items.append(item)
        except:
            pass
        assert len(self.items) > 0
        return len(self.items) == 0
'''

REALISTIC = [
    ("no-eval", "pattern: eval($X)", "warning", None),
    ("no-exec", "pattern: exec($X)", "warning", None),
    ("none-compare", "pattern: $A == None", "warning", "$A is None"),
    ("none-compare-ne", "pattern: $A != None", "warning", "$A is not None"),
    ("print-call", "pattern: print($$$ARGS)", "info", "logging.info($$$ARGS)"),
    ("shell-true", "pattern: subprocess.call($CMD, shell=True)", "error", "subprocess.call($CMD, shell=False)"),
    ("pickle-loads", "pattern: pickle.loads($X)", "error", None),
    ("bare-except", "kind: except_clause\n  not:\n    has:\n      kind: identifier\n      stopBy: neighbor", "warning",
     None),
    ("mutable-default", "kind: default_parameter\n  has:\n    field: value\n    kind: dictionary", "warning", None),
    ("assert-in-code", "kind: assert_statement", "hint", None),
    ("len-zero", "pattern: len($X) == 0", "hint", "not $X"),
    ("open-no-with", "pattern: open($$$A).read()\n  not:\n    inside:\n      kind: with_statement\n      stopBy: end",
     "info", None),
    ("os-system", "pattern: os.system($X)", "error", None),
    ("yaml-load", "pattern: yaml.load($X)", "error", None),
    ("md5", "pattern: hashlib.md5($$$A)", "warning", None),
    ("pass-in-except", "kind: pass_statement\n  inside:\n    kind: except_clause\n    stopBy: end", "warning", None),
    ("debug-true", "pattern: $APP.run(debug=True)", "warning", None),
    ("star-import", "kind: wildcard_import", "info", None),
    ("global-stmt", "kind: global_statement", "hint", None),
    ("todo-comment", "kind: comment\n  regex: TODO|FIXME", "hint", None),
]


def rule_docs(count: int) -> list[str]:
    docs = []
    for rid, rule, severity, fix in REALISTIC[:count]:
        doc = f"id: {rid}\nlanguage: python\nseverity: {severity}\nmessage: {rid} found\nrule:\n  {rule}\n"
        if fix:
            doc += f"fix: {fix}\n"
        docs.append(doc)
    for i in range(len(docs), count):
        body = f"pattern: generated_call_{i}($$$A)" if i % 2 else f"kind: identifier\n  regex: ^generated_name_{i}$"
        docs.append(f"id: gen-{i}\nlanguage: python\nseverity: hint\nmessage: generated {i}\nrule:\n  {body}\n")
    return docs


def write_project(root: Path, count: int) -> Path:
    """A project with `count` rule files and the same rules as one multi-document file (for bare ast-grep)."""
    (root / "rules").mkdir(parents=True)
    (root / "utils").mkdir()
    (root / "rule-tests").mkdir()
    (root / "sgconfig.yml").write_text("ruleDirs:\n- rules\nutilDirs:\n- utils\ntestConfigs:\n- testDir: rule-tests\n")
    docs = rule_docs(count)
    for doc in docs:
        rid = doc.split("\n", 1)[0].split(": ", 1)[1]
        (root / "rules" / f"{rid}.yml").write_text(doc)
    (root / "all-rules.yml").write_text("---\n".join(docs))
    return root
