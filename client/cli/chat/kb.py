"""`tachy chat --kb`: the retrieving stage of one terminal question.

Before the request, the question is searched in the knowledge base (`tachy kb add`)
within --kb-budget milliseconds; the passages found go to the model with their
sources, and the answer is followed by the list of sources on stderr ([1] path:line).
With --json, the first line on stdout is
    {"event": "retrieved", "ms": ..., "timed_out": false,
     "passages": [{"path", "line_start", "score"}, ...]}
Past the budget, the answer goes on without passages and stderr says so.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from client.services.knowledge.knowledge import KnowledgeBase
from client.services.knowledge.retrieval import DEFAULT_BUDGET_MS, DEFAULT_K, Retrieval, citation


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kb", action="store_true", help="search your knowledge base (tachy kb) first"
    )
    parser.add_argument(
        "--kb-k", type=int, default=DEFAULT_K, metavar="N", help="passages to send (5)"
    )
    parser.add_argument(
        "--kb-budget",
        type=float,
        default=DEFAULT_BUDGET_MS,
        metavar="MS",
        help="give up searching after MS milliseconds (50)",
    )


async def retrieve(args: argparse.Namespace, question: str) -> Retrieval:
    knowledge = KnowledgeBase()
    try:
        return await knowledge.retrieve(question, max(1, args.kb_k), args.kb_budget)
    finally:
        knowledge.close()


def report_retrieved(found: Retrieval, as_json: bool, out: TextIO | None = None) -> None:
    """The retrieved event (--json) on stdout, else one line on stderr."""
    out = out or sys.stdout
    if as_json:
        out.write(json.dumps(found.as_event(), ensure_ascii=False) + "\n")
        out.flush()
    notice = found.notice()
    if notice:
        print(notice, file=sys.stderr, flush=True)
    elif not as_json:
        count = len(found.passages)
        print(f"searched your notes: {count} passages in {found.ms:.1f} ms", file=sys.stderr)


def report_sources(found: Retrieval) -> None:
    """After the answer: where each numbered passage came from."""
    for number, hit in enumerate(found.passages, start=1):
        print(f"[{number}] {citation(hit)}", file=sys.stderr, flush=True)
