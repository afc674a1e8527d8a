"""Cutting a document into passages, and the words a full-text index sees (pure).

A passage is a few hundred tokens of consecutive lines with its line range, so an
answer can cite "notes/trip.md:12-30". Lines are cut at a blank line once a passage
is long enough, and always before it gets too long; a single line longer than that
(minified code, a paragraph with no newline) is cut into pieces that keep its number.

Scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Myanmar; Korean
for its compounds) have no words for a tokenizer to find. `index_terms` gives them
to the index as overlapping character pairs, plus single characters, the way Lucene's
CJK bigram filter does: a two-character word like 北京 is then a term, and a question
finds it whatever surrounds it. Everything else goes to the index as written, for
SQLite's unicode61 tokenizer (with Porter stemming) to split into words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

# Raise when index_terms changes: an index built by an older version is rebuilt
# (client/store/knowledge/db.py), since deleting a passage needs the same terms.
TERMS_VERSION = 1

_UNSPACED = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff\u31f0-\u31ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han
    "\uac00-\ud7af"  # Hangul syllables
    "\U00020000-\U0003134f"  # Han extensions B-H
)
UNSPACED_RUN = re.compile(f"[{_UNSPACED}]+")
_WORD = re.compile(f"[^\\W_{_UNSPACED}]+")

# Chinese particles and conjunctions: in a question they join the words asked about,
# and a pair across one ("烤鸭和" of "烤鸭和面条") is noise that can outrank them. The
# question's runs are cut at them (the index keeps every pair, so nothing is lost).
STOP_CHARACTERS = "的了吗呢吧啊呀和跟与及或"
_STOP_SPLIT = re.compile(f"[{STOP_CHARACTERS}]")

TARGET_TOKENS = 200  # a passage ends at the next blank line after this many
MAX_TOKENS = 320  # ... and always before this many
MAX_LINE_CHARS = 1200  # a longer line is cut into pieces of this size

# Words that say nothing about which passage answers a question; leaving them out of
# the query keeps bm25 from walking their long posting lists.
STOPWORDS = frozenset(
    """a about above after again all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only
    or other our ours out over own same she should so some such than that the their them
    then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your yours tell say says said
    please""".split()
)


@dataclass(frozen=True, slots=True)
class Passage:
    line_start: int
    line_end: int
    text: str
    tokens: int


def estimate_tokens(text: str) -> int:
    """About how many tokens a model's tokenizer makes of `text`: one per word or
    character of an unspaced script, plus one per 16 characters (long words, code,
    punctuation). English comes out near 1.35 per word. Good to a factor of 1.5, which
    is all a prompt budget needs."""
    unspaced = sum(len(run) for run in UNSPACED_RUN.findall(text))
    words = len(_WORD.findall(text))
    return words + unspaced + len(text) // 16


def index_terms(text: str) -> tuple[str, str]:
    """(words, pairs): what the index stores for a passage. `words` is the text with
    unspaced runs blanked out; `pairs` is their characters and character pairs."""
    words = UNSPACED_RUN.sub(" ", text)
    pairs: list[str] = []
    for run in UNSPACED_RUN.findall(text):
        pairs.extend(run)
        pairs.extend(run[i : i + 2] for i in range(len(run) - 1))
    return words, " ".join(pairs)


def query_terms(question: str, limit: int = 48) -> list[str]:
    """The terms to look up for a question: its words without stopwords, and the
    character pairs of its unspaced runs (a lone character stands for itself)."""
    terms: list[str] = []
    for word in _WORD.findall(UNSPACED_RUN.sub(" ", question)):
        lowered = word.lower()
        if lowered not in STOPWORDS and lowered not in terms:
            terms.append(lowered)
    for whole in UNSPACED_RUN.findall(question):
        for run in _STOP_SPLIT.split(whole):
            grams = [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
            terms.extend(gram for gram in grams if gram and gram not in terms)
    return terms[:limit]


COMMON_SHARE = 0.2  # a term in more than this share of the passages ...
COMMON_MIN = 500  # ... and in more than this many is common (ranking 500 costs ~1 ms)
MAX_QUERY_TERMS = 16


def choose_terms(terms: list[str], counts: dict[str, int], passages: int) -> list[str]:
    """The terms worth ranking on, rarest first: those in no passage are left out, and
    so are common ones (in more than COMMON_SHARE and COMMON_MIN of them, as Lucene's
    CommonTermsQuery does) unless nothing rarer is asked. A common term says little
    about which passage answers, and scoring every passage it is in costs most of a
    search ('notes' in every one of 5,000 notes: P95 29 ms with it, 5 ms without)."""
    present = sorted((term for term in terms if counts.get(term, 0) > 0), key=counts.__getitem__)
    limit = max(COMMON_SHARE * passages, COMMON_MIN)
    rare = [term for term in present if counts[term] <= limit]
    return (rare or present)[:MAX_QUERY_TERMS]


def fts_query(terms: Iterable[str]) -> str:
    """An FTS5 MATCH expression: any of the terms, each quoted so none is syntax."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def cut_passages(lines: Iterable[tuple[int, str]]) -> Iterator[Passage]:
    """Group numbered lines into passages (see the module docstring). A line number
    may come several times in a row: the pieces are joined into one line."""
    builder = _PassageBuilder()
    for number, text in _whole_lines(lines):
        for piece in _pieces(text):
            yield from builder.add(number, piece)
    yield from builder.finish()


def _whole_lines(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    current: int | None = None
    parts: list[str] = []
    held = 0
    for number, text in lines:
        if number != current and current is not None:
            yield current, "".join(parts)
            parts, held = [], 0
        current = number
        parts.append(text)
        held += len(text)
        if held > MAX_LINE_CHARS * 4:
            # A huge line: hand it on in big pieces rather than hold it all.
            yield current, "".join(parts)
            parts, held = [], 0
    if current is not None and parts:
        yield current, "".join(parts)


def _pieces(text: str) -> Iterator[str]:
    if len(text) <= MAX_LINE_CHARS:
        yield text
        return
    for start in range(0, len(text), MAX_LINE_CHARS):
        yield text[start : start + MAX_LINE_CHARS]


class _PassageBuilder:
    def __init__(self) -> None:
        self._lines: list[str] = []
        self._start = 0
        self._end = 0
        self._tokens = 0

    def add(self, number: int, text: str) -> Iterator[Passage]:
        tokens = estimate_tokens(text)
        if self._lines and self._tokens + tokens > MAX_TOKENS:
            yield from self.finish()
        blank = not text.strip()
        if blank and self._tokens >= TARGET_TOKENS:
            yield from self.finish()
            return
        if blank and not self._lines:
            return  # a passage never starts with a blank line
        if not self._lines:
            self._start = number
        self._lines.append(text)
        if not blank:
            self._end = number  # trailing blank lines are not part of the range
        self._tokens += tokens

    def finish(self) -> Iterator[Passage]:
        text = "\n".join(self._lines).strip()
        if text:
            yield Passage(self._start, self._end, text, self._tokens)
        self._lines = []
        self._tokens = 0
