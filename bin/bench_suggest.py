"""Three 30-line Python examples for the suggest_rule latency case (B7): two that must be flagged (an eval
buried in ordinary code) and one that must not (the same code parsing with ast.literal_eval)."""

from __future__ import annotations

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
