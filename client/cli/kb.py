"""`tachy kb`: the knowledge base of your own documents.

    tachy kb add ~/notes ~/papers/thesis.md   index folders and files (again: only changes)
    tachy kb list                             what was added, with file and passage counts
    tachy kb remove ~/notes                   forget a folder or file (the files stay)
    tachy kb search "question" [-k N] [--json]

search --json prints a list of {"path", "line_start", "line_end", "score", "text"},
best first (score: bm25, higher is better). Exit codes: 0 done, 1 nothing found or a
path not known, 2 the index cannot be used.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TextIO

from client.services.knowledge.indexer import IndexProgress
from client.services.knowledge.knowledge import IndexReport, KnowledgeBase, KnowledgeUnavailable
from client.services.knowledge.retrieval import DEFAULT_K, citation
from client.store.knowledge.files import display_path

EXIT_NOT_FOUND = 1
EXIT_UNAVAILABLE = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="kb_action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="index folders or files (again: only what changed)")
    add.add_argument("paths", nargs="+", metavar="PATH")
    actions.add_parser("list", help="what is in the knowledge base")
    remove = actions.add_parser("remove", help="forget a folder or file (the files stay)")
    remove.add_argument("path", metavar="PATH")
    search = actions.add_parser("search", help="the passages that best match a question")
    search.add_argument("question")
    search.add_argument("-k", type=int, default=DEFAULT_K, metavar="N", help="how many (5)")
    search.add_argument("--json", action="store_true", help="print a JSON list")


def run(args: argparse.Namespace) -> int:
    knowledge = KnowledgeBase()
    try:
        return _ACTIONS[args.kb_action](knowledge, args)
    except KnowledgeUnavailable as error:
        print(f"tachy kb: {error}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    finally:
        knowledge.close()


def _add(knowledge: KnowledgeBase, args: argparse.Namespace) -> int:
    printer = ProgressPrinter(sys.stderr)
    report = knowledge.add(args.paths, printer.show)
    printer.done()
    print(summary(report), file=sys.stderr)
    for path, sentence in report.unreadable:
        print(f"  {display_path(path)} {sentence}", file=sys.stderr)
    return 0 if report.indexed or report.unchanged or not report.unreadable else EXIT_NOT_FOUND


def _list(knowledge: KnowledgeBase, args: argparse.Namespace) -> int:
    sources = knowledge.sources()
    if not sources:
        print("The knowledge base is empty: add folders with `tachy kb add PATH`.", file=sys.stderr)
        return 0
    for source in sources:
        skipped = f", {source.skipped} skipped" if source.skipped else ""
        counts = f"{source.files} files, {source.passages} passages{skipped}"
        print(f"{display_path(source.path)}\t{counts}")
    return 0


def _remove(knowledge: KnowledgeBase, args: argparse.Namespace) -> int:
    removed = knowledge.remove(args.path)
    if removed is None:
        print(
            f"tachy kb: {args.path} is not in the knowledge base (see `tachy kb list`).",
            file=sys.stderr,
        )
        return EXIT_NOT_FOUND
    print(f"removed {args.path}: {removed} files left the index", file=sys.stderr)
    return 0


def _search(knowledge: KnowledgeBase, args: argparse.Namespace) -> int:
    if args.k < 1:
        print("tachy kb: -k must be at least 1", file=sys.stderr)
        return EXIT_UNAVAILABLE
    found = knowledge.search(args.question, args.k)
    if found.error:
        print(f"tachy kb: {found.error}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    if args.json:
        rows = [
            {
                "path": hit.path,
                "line_start": hit.line_start,
                "line_end": hit.line_end,
                "score": hit.score,
                "text": hit.text,
            }
            for hit in found.passages
        ]
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        for number, hit in enumerate(found.passages, start=1):
            print(f"[{number}] {citation(hit)}  (score {hit.score:.2f})")
            print("    " + hit.text[:300].replace("\n", "\n    "))
    print(f"{len(found.passages)} passages in {found.ms:.1f} ms", file=sys.stderr)
    return 0 if found.passages else EXIT_NOT_FOUND


_ACTIONS = {"add": _add, "list": _list, "remove": _remove, "search": _search}


def summary(report: IndexReport) -> str:
    parts = [f"indexed {report.indexed} files ({report.passages} passages)"]
    if report.unchanged:
        parts.append(f"{report.unchanged} unchanged")
    if report.removed:
        parts.append(f"{report.removed} removed (deleted)")
    if report.binary:
        parts.append(f"{report.binary} binary skipped")
    if report.unsupported:
        parts.append(f"{report.unsupported} of other types skipped")
    if report.unreadable:
        parts.append(f"{len(report.unreadable)} unreadable")
    return ", ".join(parts) + f" in {report.seconds:.1f} s"


class ProgressPrinter:
    """One line rewritten in place on a terminal, at most ten times a second."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._live = out.isatty()
        self._last = 0.0
        self._shown = False

    def show(self, progress: IndexProgress) -> None:
        now = time.monotonic()
        if not self._live or (now - self._last < 0.1 and progress.done < progress.total):
            return
        self._last = now
        self._shown = True
        where = display_path(progress.source)
        self._out.write(f"\rindexing {progress.done}/{progress.total} files in {where}\x1b[K")
        self._out.flush()

    def done(self) -> None:
        if self._shown:
            self._out.write("\r\x1b[K")
            self._out.flush()
