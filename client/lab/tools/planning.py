"""What the lab's tool model does with a request that offers tools. Pure.

Calls: every offered tool the question names, in the order it names them (so two named
tools make parallel calls), else the first tool. Arguments from the question: numbers in
order for number and integer parameters, an enum value the question mentions (else the
first), for other strings the question's last capitalised word (a city, a name) or the
question itself. After tool results, the answer quotes each result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
CAPITALISED = re.compile(r"\b[A-Z][\w-]*")


@dataclass(frozen=True, slots=True)
class PlannedCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolTurn:
    """Either calls to make or, after tool results, the answer's text."""

    calls: tuple[PlannedCall, ...] = ()
    answer: str = ""


def plan_turn(tools: list[Any], messages: list[Any]) -> ToolTurn:
    results = _trailing_results(messages)
    if results:
        names = _call_names(messages)
        quoted = [f"{_result_name(r, names)} gave {_content(r)}" for r in results]
        return ToolTurn(answer="The tools answered: " + "; ".join(quoted) + ".")
    specs = [t["function"] for t in tools if isinstance(t, dict) and _is_function(t)]
    if not specs:
        return ToolTurn(answer="No tool was offered that I can use.")
    question = _last_user_text(messages)
    numbers = [_number(text) for text in NUMBER.findall(question)]
    chosen = _named(specs, question) or specs[:1]
    return ToolTurn(calls=tuple(_call(spec, question, numbers) for spec in chosen))


def _is_function(tool: dict[str, Any]) -> bool:
    function = tool.get("function")
    return isinstance(function, dict) and isinstance(function.get("name"), str)


def _named(specs: list[dict[str, Any]], question: str) -> list[dict[str, Any]]:
    lowered = question.lower()
    found = []
    for spec in specs:
        name = spec["name"].lower()
        at = min((i for i in (lowered.find(name), lowered.find(name.replace("_", " "))) if i >= 0),
                 default=-1)  # fmt: skip
        if at >= 0:
            found.append((at, spec))
    return [spec for _, spec in sorted(found, key=lambda pair: pair[0])]


def _call(spec: dict[str, Any], question: str, numbers: list[float | int]) -> PlannedCall:
    parameters = spec.get("parameters")
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    arguments: dict[str, Any] = {}
    for name, schema in (properties or {}).items():
        value = _value(schema if isinstance(schema, dict) else {}, question, numbers)
        if value is not None:
            arguments[name] = value
    return PlannedCall(spec["name"], arguments)


def _value(schema: dict[str, Any], question: str, numbers: list[float | int]) -> Any:
    kind = schema.get("type")
    if kind in ("number", "integer"):
        if not numbers:
            return 0
        number = numbers.pop(0)
        return int(number) if kind == "integer" else number
    if kind == "boolean":
        return True
    if kind not in (None, "string"):
        return None
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        mentioned = [v for v in enum if isinstance(v, str) and v.lower() in question.lower()]
        return mentioned[0] if mentioned else enum[0]
    words = CAPITALISED.findall(question)[1:]  # the first is the sentence's start
    return words[-1] if words else question


def _number(text: str) -> float | int:
    return float(text) if "." in text else int(text)


def _last_user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else ""
    return ""


def _trailing_results(messages: list[Any]) -> list[dict[str, Any]]:
    results = []
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") != "tool":
            break
        results.append(message)
    return results[::-1]


def _call_names(messages: list[Any]) -> dict[str, str]:
    """Each call id of the assistant's messages -> its tool (OpenAI names results by id)."""
    names = {}
    for message in messages:
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(call.get("id"), str):
                names[call["id"]] = str(function.get("name", "the tool"))
    return names


def _result_name(result: dict[str, Any], names: dict[str, str]) -> str:
    name = result.get("tool_name") or names.get(str(result.get("tool_call_id")))
    return str(name) if name else "the tool"


def _content(result: dict[str, Any]) -> str:
    content = result.get("content")
    return content if isinstance(content, str) else ""
