"""The retrieving stage of a chat session: what a question with knowledge on gets.

The session asks `KnowledgeStage.retrieve(question, prompt_budget)` between storing
the question and planning the request. The passages found within the time budget are
kept to a share of the prompt budget (best first), so the planner still has room for
the conversation; the generation yields them as a `Retrieved` event, so the window
can show "Searching your notes… 12 ms" and, under the answer, the sources.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from client.services.knowledge.knowledge import KnowledgeBase
from client.services.knowledge.retrieval import (
    DEFAULT_BUDGET_MS,
    DEFAULT_K,
    Hit,
    Retrieval,
    citation,
)

log = logging.getLogger(__name__)

PASSAGE_SHARE = 0.5  # passages take at most this share of the prompt budget


@dataclass(frozen=True, slots=True)
class Retrieved:
    """The retrieving stage is over: what it found (maybe nothing), and in how long."""

    retrieval: Retrieval
    at_ns: int


@dataclass(slots=True)
class KnowledgeStage:
    knowledge: KnowledgeBase
    k: int = DEFAULT_K
    budget_ms: float = DEFAULT_BUDGET_MS
    # Whether a conversation (None: a new one) has knowledge on; the window sets it.
    enabled: Callable[[int | None], bool] = field(default=lambda _conversation: False)

    async def retrieve(self, question: str, prompt_budget: int | None = None) -> Retrieval:
        started = time.perf_counter()
        try:
            found = await self.knowledge.retrieve(question, self.k, self.budget_ms)
        except Exception as error:  # a broken index must not stop the answer
            log.exception("the knowledge search failed")
            ms = (time.perf_counter() - started) * 1000
            return Retrieval([], ms, error=str(error) or type(error).__name__)
        if prompt_budget is None or not found.passages:
            return found
        kept = fit_passages(found.passages, int(prompt_budget * PASSAGE_SHARE))
        return Retrieval(kept, found.ms, found.timed_out, found.error, found.missing)


def fit_passages(passages: list[Hit], tokens: int) -> list[Hit]:
    """The best passages whose tokens fit in `tokens` (at least none, in rank order)."""
    kept: list[Hit] = []
    used = 0
    for hit in passages:
        if used + hit.tokens > tokens:
            break
        kept.append(hit)
        used += hit.tokens
    return kept


def citation_labels(passages: list[Hit]) -> list[str]:
    """The line for each passage, "[1] ~/notes/kyoto.md:1-3", in the order sent."""
    return [f"[{n}] {citation(hit)}" for n, hit in enumerate(passages, start=1)]


def sources_record(retrieval: Retrieval) -> list[dict[str, Any]]:
    """The passages' places, as the stored request keeps them (not their text)."""
    return [
        {"path": h.path, "unit": h.unit, "line_start": h.line_start, "line_end": h.line_end}
        for h in retrieval.passages
    ]


def stored_sources(stages: object) -> tuple[list[Hit], float | None]:
    """An answer's sources and the retrieving stage's ms, from its stored stages."""
    for stage in stages if isinstance(stages, list) else []:
        if not isinstance(stage, dict) or stage.get("stage") != "retrieving":
            continue
        start, end = stage.get("start_ms"), stage.get("end_ms")
        hits = [_stored_hit(item) for item in stage.get("sources", []) if _is_source(item)]
        if isinstance(start, int | float) and isinstance(end, int | float):
            return hits, end - start
        return hits, None
    return [], None


def _is_source(item: object) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("path"), str)
        and (isinstance(item.get("line_start"), int))
    )


def _stored_hit(item: dict[str, Any]) -> Hit:
    start = int(item["line_start"])
    end = item.get("line_end")
    unit = item.get("unit") if item.get("unit") in ("line", "page") else "line"
    return Hit(item["path"], str(unit), start, end if isinstance(end, int) else start, 0.0, 0, "")


# Editors that open a file at a line, and how they are told to. The first found on
# PATH (after $VISUAL, when it is one of them) opens a citation; else the desktop's
# default application opens the file (at its start).
_EDITORS: dict[str, Callable[[str, int], list[str]]] = {
    "code": lambda path, line: ["code", "--goto", f"{path}:{line}"],
    "codium": lambda path, line: ["codium", "--goto", f"{path}:{line}"],
    "subl": lambda path, line: ["subl", f"{path}:{line}"],
    "gedit": lambda path, line: ["gedit", f"+{line}", path],
    "gnome-text-editor": lambda path, line: ["gnome-text-editor", f"+{line}", path],
    "kate": lambda path, line: ["kate", "--line", str(line), path],
    "kwrite": lambda path, line: ["kwrite", "--line", str(line), path],
    "mousepad": lambda path, line: ["mousepad", f"--line={line}", path],
}


def open_in_editor(path: str, line: int) -> bool:
    """Open path at line in a graphical editor (see _EDITORS); False if none is here."""
    command = editor_command(path, line)
    if command is None:
        return False
    try:
        subprocess.Popen(command, start_new_session=True, stdin=subprocess.DEVNULL)
    except OSError:
        log.warning("could not run %s", command[0])
        return False
    return True


def editor_command(path: str, line: int) -> list[str] | None:
    """A command that opens path at line in a graphical editor, or None."""
    visual = os.path.basename(os.environ.get("VISUAL", "").split(" ")[0])
    for name in [visual, *_EDITORS] if visual in _EDITORS else _EDITORS:
        if shutil.which(name):
            return _EDITORS[name](path, max(1, line))
    return None
