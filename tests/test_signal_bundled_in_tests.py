"""Bundled rules whose findings in test code are lowered to info (`metadata.inTests: info`, issue 21): each with
the corpus line that showed it, once in test code and once in shipped code, scanned with the real ast-grep."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgtools.core.bundled import bundled_dir
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan import paths

# (rule file, test file, shipped file, code, severity outside tests); a Python module that imports a `testing`
# package is test code wherever it lies, so the shipped copy leaves that line out
CASES = [
    # openvswitch tests/test-ovsdb.py:928 kills a pid the harness started
    ("python/command-injection-subprocess-python.yml", "tests/test_ovsdb.py", "ovs/control.py",
     "import os\n\ndef stop(pids, i):\n    command = 'kill %s' % pids[i]\n    os.popen(command)\n", "error"),
    # sqlalchemy dialects/postgresql/provision.py:80 (imports sqlalchemy.testing: test code)
    ("python/sql-injection-format-string-python.yml", "dialects/pg/provision.py", "dialects/pg/base.py",
     "from ...testing.provision import configure_follower\n\n\ndef f(cursor, schema_name):\n"
     "    cursor.execute(\"SET SESSION search_path='%s'\" % schema_name)\n", "error"),
    # Redux Toolkit src/tests/createAsyncThunk.test-d.ts:224, a type test
    ("typescript/floating-promise-then-typescript.yml", "src/tests/thunk.test-d.ts", "src/thunk.ts",
     "defaultDispatch(fetchLiveCallsError('asd')).then((result) => {\n  check(result)\n})\n", "warning"),
    # Redux Toolkit src/query/tests/createApi.test.ts:1100, a mock server reading the page it asked for
    ("typescript/parseint-missing-radix-typescript.yml", "src/query/tests/createApi.test.ts", "src/query/page.ts",
     "const pageNum = parseInt(pageString || '0')\n", "warning"),
    # binutils gprofng/testsuite/gprofng.display/synprog/synprog.c:232, a test program copying its command line
    ("c/strcpy-strcat-overflow-c.yml", "gprofng/testsuite/synprog/synprog.c", "gprofng/src/synprog.c",
     "int main (int argc, char **argv) {\n  char arglist[4096];\n  strcpy (arglist, argv[0]);\n}\n", "warning"),
    # the same program's do_system: a command it built itself
    ("c/system-command-injection-c.yml", "gprofng/testsuite/synprog/synprog.c", "gprofng/src/synprog.c",
     "void do_system (char *cmd0) {\n  int ret = system (cmd0);\n}\n", "error"),
    # libxcrypt test/crypt-gost-yescrypt.c:91
    ("c/realloc-self-assign-leak-c.yml", "test/crypt-gost-yescrypt.c", "lib/crypt-gost-yescrypt.c",
     "void grow (char *buf, size_t n) {\n  buf = realloc (buf, n);\n}\n", "warning"),
    # binutils ld/testsuite/ld-elf/dl3main.cc:13
    ("cpp/catch-exception-by-value-cpp.yml", "ld/testsuite/ld-elf/dl3main.cc", "ld/dl3main.cc",
     "int main () {\n  try { f (); }\n  catch (A a) { return a.i; }\n}\n", "warning"),
    # openvswitch tests/test-util.c:1110, a test scanning its own constant input
    ("c/scanf-unbounded-string-c.yml", "tests/test-util.c", "lib/util.c",
     "static void test_ovs_scan (void) {\n  char str[16];\n  sscanf (\"0x12-3]xyz\", \"%[^-a-f]\", str);\n}\n",
     "warning"),
]


@pytest.mark.parametrize(("rule", "test_file", "src_file", "code", "severity"), CASES)
def test_bundled_rule_is_info_in_tests_only(initialized: Workspace, engine: Engine, rule: str, test_file: str,
                                            src_file: str, code: str, severity: str) -> None:
    shipped = "".join(line for line in code.splitlines(True) if ".testing" not in line)
    files = {"rules/r.yml": (bundled_dir() / "rules" / rule).read_text(), test_file: code, src_file: shipped}
    for name, text in files.items():
        p = Path(initialized.root) / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    marks = sorted((d["file"], d["inTest"], d["severity"]) for d in result["issues"])
    assert marks == sorted([(src_file, False, severity), (test_file, True, "info")])
