"""An answer's sources as the chat shows them: "Sources (searched in 12 ms):" and one
link per passage ("[1] ~/notes/kyoto.md:1-3"), live
(client/ui/knowledge/knowledge_controller.py) and for a reopened answer, from its stored
request's stages (client/ui/chat/chat_page.py)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale

from client.services.knowledge.knowledge_stage import citation_labels, stored_sources
from client.services.knowledge.retrieval import Hit
from client.ui.chat.render.messages.blocks import ShownMessage


def citations_for(hits: list[Hit], ms: float | None) -> tuple[list[str], list[tuple[str, int]]]:
    """What the chat shows under an answer given these passages: a heading and one
    line per source, and where each opens (path, line)."""
    if ms is None:
        heading = QCoreApplication.translate("KnowledgeController", "Sources:")
    else:
        heading = QCoreApplication.translate(
            "KnowledgeController", "Sources (searched in {ms} ms):"
        ).format(ms=QLocale().toString(ms, "f", 0))
    return [heading, *citation_labels(hits)], [(hit.path, hit.line_start) for hit in hits]


def add_stored_citations(message: ShownMessage, stages: object) -> None:
    """A reopened answer's sources, from its stored request's stages."""
    hits, ms = stored_sources(stages)
    if hits:
        message.citations, message.citation_targets = citations_for(hits, ms)
