"""A router's own account of its workers: vLLM's `vllm-router` and SGLang's router answer
GET /list_workers with {"urls": [...]} and GET /workers with {"workers": [{"url",
"is_healthy", "load", "priority", ...}], "total": n}. Everything else they answer (/v1/*,
/version, /metrics, even /api/version) is forwarded to one worker. Pure: JSON in."""

from __future__ import annotations

from dataclasses import dataclass

DISPLAY_NAME = "vLLM router"


@dataclass(frozen=True, slots=True)
class Worker:
    url: str
    healthy: bool | None = None
    load: float | None = None  # requests in flight through the router; None: not said


def worker_urls(answer: object) -> list[str] | None:
    """/list_workers: the workers' addresses; None when this is not a router's answer."""
    urls = answer.get("urls") if isinstance(answer, dict) else None
    if not isinstance(urls, list) or not all(isinstance(url, str) for url in urls):
        return None
    return list(urls)


def workers(answer: object) -> list[Worker] | None:
    """/workers: each worker with its health and load; None when not a router's answer."""
    entries = answer.get("workers") if isinstance(answer, dict) else None
    if not isinstance(entries, list):
        return None
    return [
        Worker(
            str(entry["url"]),
            entry.get("is_healthy") if isinstance(entry.get("is_healthy"), bool) else None,
            _load(entry.get("load")),
        )
        for entry in entries
        if isinstance(entry, dict) and isinstance(entry.get("url"), str)
    ]


def router_name(answer: object) -> str | None:
    """ "vLLM router · 2 workers" from /list_workers; None when not a router's answer."""
    urls = worker_urls(answer)
    return named(len(urls)) if urls is not None else None


def named(count: int) -> str:
    return f"{DISPLAY_NAME} · {count} worker" + ("" if count == 1 else "s")


def _load(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None  # /get_loads says -1 for a worker that does not report one
    return float(value)


def reported_loads(answer: object) -> dict[str, float]:
    """/get_loads: each worker's own load, where it reports one (not -1)."""
    entries = answer.get("workers") if isinstance(answer, dict) else None
    found: dict[str, float] = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("worker"), str):
            load = _load(entry.get("load"))
            if load is not None:
                found[entry["worker"]] = load
    return found
