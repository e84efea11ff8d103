"""Validation errors of a mapped row as :class:`~ragjudge.errors.RowProblem` objects
that name the row, the source column and the reason in plain words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from pydantic import ValidationError

from ragjudge.errors import RowProblem
from ragjudge.loading._mapping import Loc, Mapped
from ragjudge.schema import Message


class _Issue(NamedTuple):
    loc: Loc
    kind: str
    message: str
    value: Any


# Sample fields typed as unions: pydantic tags their errors with the member type.
_UNION_FIELDS: dict[str, tuple[dict[type, str], str]] = {
    "expected_response": (
        {str: "str", list: "list[str]"},
        "must be a string or a non-empty list of strings",
    ),
    "guidelines": (
        {list: "list[str]", dict: "dict[str,list[str]]"},
        "must be a list of strings or a dict mapping names to lists of strings",
    ),
}


def validation_problems(
    label: str, row: int, mapped: Mapped, exc: ValidationError
) -> list[RowProblem]:
    """The problems of row number ``row``, whose fields ``mapped`` failed validation
    with ``exc``: one per distinct field and reason, naming the source column."""
    fields = mapped.fields
    issues = [_Issue(tuple(e["loc"]), e["type"], e["msg"], e.get("input")) for e in exc.errors()]
    issues = _locate_message_issues(issues, fields.get("request"))
    issues = _resolve_union_issues(issues, fields)
    problems: list[RowProblem] = []
    seen: set[tuple[str, str]] = set()
    for issue in issues:
        path = _model_rule_field(issue) or _field_path(issue.loc, mapped.origins)
        reason = _reason(issue)
        if (path, reason) not in seen:
            seen.add((path, reason))
            problems.append(RowProblem(source=label, row=row, field=path, reason=reason))
    return problems


def _locate_message_issues(issues: list[_Issue], request: Any) -> list[_Issue]:
    """Point errors inside a request's chat messages at the message's index.

    The request validator reports them without the position; validating each message
    again finds it.
    """
    if not any(i.loc[:1] == ("request",) and i.kind != "value_error" for i in issues):
        return issues
    located = _message_issues(request)
    if not located:
        return issues
    first = next(n for n, i in enumerate(issues) if i.loc[:1] == ("request",))
    others = [i for i in issues if i.loc[:1] != ("request",)]
    return others[:first] + located + others[first:]


def _message_issues(request: Any) -> list[_Issue]:
    if not isinstance(request, dict):
        return []
    key = "messages" if "messages" in request else "history"
    messages = request.get(key)
    if messages is None:
        return []
    if not isinstance(messages, list):
        return [_Issue(("request", key), "list_type", "must be a list of chat messages", messages)]
    issues: list[_Issue] = []
    for index, message in enumerate(messages):
        try:
            Message.model_validate(message)
        except ValidationError as exc:
            issues.extend(
                _Issue(("request", key, index, *e["loc"]), e["type"], e["msg"], e.get("input"))
                for e in exc.errors()
            )
    return issues


def _resolve_union_issues(issues: list[_Issue], fields: Mapping[str, Any]) -> list[_Issue]:
    """Keep the errors of the union member that matches the value's shape.

    When no member matches, one issue says what the field accepts.
    """
    resolved: list[_Issue] = []
    reported_shape: set[str] = set()
    for issue in issues:
        name = issue.loc[0] if issue.loc else None
        if not isinstance(name, str) or name not in _UNION_FIELDS or len(issue.loc) < 2:
            resolved.append(issue)
            continue
        members, accepted = _UNION_FIELDS[name]
        value = fields.get(name)
        member = next((tag for kind, tag in members.items() if isinstance(value, kind)), None)
        if member is None:
            if name not in reported_shape:
                reported_shape.add(name)
                resolved.append(_Issue((name,), "union", accepted, value))
        elif issue.loc[1] == member:
            resolved.append(_Issue((name, *issue.loc[2:]), issue.kind, issue.message, issue.value))
    return resolved


def _model_rule_field(issue: _Issue) -> str | None:
    """The fields a row-level rule is about (the rule itself has no location)."""
    if not issue.loc and "expected_facts" in issue.message:
        return "expected_facts/expected_response"
    return None


def _field_path(loc: Loc, origins: Mapping[Loc, str]) -> str:
    """``('retrieved_context', 0, 'doc_uri')`` → ``retrieved_context[0].doc_uri``,
    naming the source column for fields translated from another format."""
    if not loc:
        return "<row>"
    head: str
    head, rest = str(loc[0]), loc[1:]
    for size in range(len(loc), 0, -1):
        if loc[:size] in origins:
            head, rest = origins[loc[:size]], loc[size:]
            break
    parts = [head]
    for part in rest:
        parts.append(f"[{part}]" if isinstance(part, int) else f".{part}")
    return "".join(parts)


def _reason(issue: _Issue) -> str:
    if issue.kind == "missing":
        return "field required"
    if issue.kind == "value_error":
        return issue.message.removeprefix("Value error, ")
    return f"{issue.message} (got {short_repr(issue.value)})"


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
