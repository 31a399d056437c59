"""The stdio/HTTP guard's nesting check (server/guard.py `_depth`): a message is refused past
SGTOOLS_MAX_JSON_DEPTH levels and brackets inside strings never count, whether the count of brackets (in C)
answers or the per-character pass has to."""

from __future__ import annotations

import json

from sgtools.server import guard


def _call(arguments: object) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "scan_code", "arguments": arguments}})


def _refused(text: str) -> bool:
    verdict = guard.check_message(text)
    return verdict.forward is None and verdict.reply is not None and "nested deeper" in str(verdict.reply)


def test_depth_at_the_limit_passes_and_one_more_is_refused() -> None:
    # the envelope and arguments are 3 levels: 61 more make 64, the default limit
    assert not _refused(_call({"x": json.loads("[" * 61 + "]" * 61)}))
    assert _refused(_call({"x": json.loads("[" * 62 + "]" * 62)}))


def test_brackets_in_strings_never_count() -> None:
    code = "function f() {" * 500 + "}" * 500  # many brackets, all inside one string: the slow pass, no refusal
    assert not _refused(_call({"code": code, "language": "typescript"}))
    assert not _refused(_call({"code": "[" * 10_000, "language": "python"}))
