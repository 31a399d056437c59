"""Three 30-line Python examples for the suggest_rule latency case (B7): two that must be flagged (an eval
buried in ordinary code) and one that must not (the same code parsing with ast.literal_eval)."""

from __future__ import annotations

from pathlib import Path

_BODY = """\
def {name}(request, store):
    \"\"\"Handle one {name} request.\"\"\"
    user = request.user
    if user is None:
        return {{"status": 401}}
    params = dict(request.args)
    limit = int(params.get("limit", 10))
    offset = int(params.get("offset", 0))
    items = store.query(user.id, limit=limit, offset=offset)
    total = 0
    for item in items:
        total += item.{field}
        if item.flagged:
            store.audit(user.id, item.id)
    expression = params.get("{param}", "0")
    value = {call}(expression)
    report = {{
        "user": user.name,
        "count": len(items),
        "total": total,
        "value": value,
    }}
    try:
        store.save(user.id, report)
    except store.Error as exc:
        log.warning("could not save %s: %s", user.id, exc)
        return {{"status": 500}}
    if total > {threshold}:
        notify(user, report)
    return {{"status": 200, "report": report}}
"""


def examples() -> tuple[list[str], list[str]]:
    """(invalid, valid): three examples of 30 lines each."""
    invalid = [_BODY.format(name="summary", field="price", param="expr", call="eval", threshold=100),
               _BODY.format(name="totals", field="amount", param="formula", call="eval", threshold=250)]
    valid = [_BODY.format(name="summary", field="price", param="expr", call="ast.literal_eval", threshold=100)]
    assert all(len(e.splitlines()) == 30 for e in invalid + valid)
    return invalid, valid


def write_tree(root: Path, files: int) -> None:
    """A `files`-file Python project (30 lines each, every tenth with an eval) in 20 packages, plus the default
    excludes' folders the proof must skip."""
    for i in range(files):
        package = root / f"pkg{i % 20}"
        package.mkdir(parents=True, exist_ok=True)
        call = "eval" if i % 10 == 0 else "ast.literal_eval"
        (package / f"mod{i}.py").write_text(_BODY.format(name=f"handler{i}", field="price", param="expr", call=call,
                                                         threshold=i), encoding="utf-8")
    (root / "node_modules").mkdir(exist_ok=True)
    (root / "node_modules" / "dep.py").write_text("eval(x)\n", encoding="utf-8")


# The rule an agent drafts for "no eval on request data" (`draft_rule`): proven on the examples, offered first.
_DRAFT = "rule:\n  kind: call\n  has: {field: function, regex: ^eval$}\n"


def main(argv: list[str] | None = None) -> int:
    """suggest_rule's latency with the workspace proof on a generated project (issue 29, part 3)."""
    import argparse
    import statistics
    import tempfile
    import time

    from sgtools.engine.process import Engine
    from sgtools.project.workspace import Workspace
    from sgtools.workflows.suggest.service import suggest_rule

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args(argv)
    invalid, valid = examples()
    short = (["result = eval(user_input)", "eval(request.args['expr'])"], ["result = ast.literal_eval(user_input)"])
    with tempfile.TemporaryDirectory(prefix="bench-suggest-") as tmp:
        root = Path(tmp)
        write_tree(root, args.files)
        ws, engine = Workspace(root), Engine()
        cases = (("three 30-line examples", (invalid, valid), None), ("two one-line examples", short, None),
                 ("three 30-line examples with the agent's draft", (invalid, valid), _DRAFT))
        for label, (bad, good), draft in cases:
            times, proofs = [], []
            suggest_rule(ws, engine, "python", bad, good, draft_rule=draft)  # warm-up
            for _ in range(args.calls):
                start = time.perf_counter()
                result = suggest_rule(ws, engine, "python", bad, good, draft_rule=draft)
                times.append(time.perf_counter() - start)
                proofs.append(result["proof"].get("seconds", 0.0))
            assert result["proof"]["files"] == args.files and result["proof"]["complete"], result["proof"]
            flags = [c["proof"]["flags"] for c in result["candidates"]]
            times.sort()
            print(f"{label}: {args.files} files, {args.calls} calls: median {statistics.median(times) * 1000:.0f} ms, "
                  f"p95 {times[max(0, round(0.95 * len(times)) - 1)] * 1000:.0f} ms; proof median "
                  f"{statistics.median(proofs) * 1000:.0f} ms; top candidates flag {flags} places")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
