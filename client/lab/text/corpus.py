"""The words the lab "generates": built-in English and Chinese texts, or a file.

Tokens are cut the way a BPE tokenizer roughly would: a word with its leading space,
punctuation on its own, one token per CJK character, one per digit (as SmolLM2's and
Llama's tokenizers split numbers, a space before one a token of its own). Replies are
a window into the corpus that wraps around, so any length can be produced. A reply
starts where a sentence does; a continuation (the partial answer the request ends
with) goes on from where that text stands in the corpus, so "explains one idea at"
goes on " a time, and stops …", as a model continuing its own words would.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from pathlib import Path

ENGLISH = (
    "The sky looks blue because air scatters short wavelengths of sunlight more than long "
    "ones. Sunlight holds every colour, but when it meets the molecules of the atmosphere "
    "the blue part bounces around far more than the red part, so blue light reaches your "
    "eyes from every direction. At sunset the light crosses much more air before it "
    "arrives, most of the blue has been scattered away, and the reds and oranges are what "
    "remain. Clouds look white because their droplets are large enough to scatter all "
    "colours about equally. On the Moon there is no air to scatter anything, so the sky "
    "stays black even in full daylight. A good answer arrives quickly, explains one idea "
    "at a time, and stops when the question has been answered. "
)
ENGLISH_REASONING = (
    "The user asks a short factual question. I should recall how scattering depends on "
    "wavelength, check that the explanation also covers sunsets and clouds, and keep the "
    "answer brief and concrete. Let me order the points: cause, everyday evidence, and an "
    "example where the effect is missing. That should be enough. "
)
CHINESE = (
    "天空之所以是蓝色的,是因为空气对短波长的阳光散射得比长波长更多。阳光包含各种颜色,"
    "当它遇到大气中的分子时,蓝光被散射得远比红光多,所以蓝光从四面八方进入我们的眼睛。"
    "日落时,阳光要穿过更厚的空气层,大部分蓝光已经被散射掉,剩下的是红色和橙色。"
    "云看起来是白色的,因为云中的水滴足够大,对各种颜色的散射程度差不多。"
    "月球上没有空气,所以即使在白天,天空也是黑色的。"
)
CHINESE_REASONING = (
    "用户问了一个简单的事实问题。我需要回忆散射与波长的关系,再检查解释是否也能说明日落和云的颜色,"
    "然后简短地作答。"
)

_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_TOKEN = re.compile(rf"\s*[{_CJK}]|\s*[^\s{_CJK}\w]|\s*[^\s{_CJK}\W\d]+|\d|\s+")


def tokenize(text: str) -> list[str]:
    """Split text into token-sized pieces whose concatenation is the text."""
    return _TOKEN.findall(text)


@lru_cache(maxsize=8)
def _corpus_tokens(corpus: str, text_file: str | None, reasoning: bool) -> tuple[str, ...]:
    if text_file:
        text = Path(text_file).read_text(encoding="utf-8")
    elif corpus == "chinese":
        text = CHINESE_REASONING if reasoning else CHINESE
    else:
        text = ENGLISH_REASONING if reasoning else ENGLISH
    # A leading space and no trailing one, and the space before a digit kept with it:
    # no token is only whitespace (an empty chunk would read as the end of a reply).
    tokens = _joined_spaces(tokenize(" " + text.strip()))
    return tokens or (" …",)


def _joined_spaces(tokens: list[str]) -> tuple[str, ...]:
    joined: list[str] = []
    space = ""
    for token in tokens:
        if token.isspace():
            space += token
        else:
            joined.append(space + token)
            space = ""
    return tuple(joined)


SENTENCE_ENDS = frozenset(".!?。！？")
MATCHED_TOKENS = 8  # the continued text's tail looked for in the corpus, at most


def pick_tokens(
    rng: random.Random,
    count: int,
    corpus: str,
    text_file: str | None = None,
    reasoning: bool = False,
    after: str = "",
) -> list[str]:
    """`count` consecutive tokens (wrapping around) from a random sentence start of the
    corpus, or, continuing `after`, from where that text stands in it."""
    if count <= 0:
        return []
    tokens = _corpus_tokens(corpus, text_file, reasoning)
    start = _continued_at(tokens, after) if after.strip() else None
    if start is None:
        starts = _sentence_starts(tokens)
        start = 0 if reasoning else starts[rng.randrange(len(starts))]
    picked = [tokens[(start + i) % len(tokens)] for i in range(count)]
    if not after.strip():
        picked[0] = picked[0].lstrip()  # a new answer starts with its word
    elif after[-1].isspace():
        picked[0] = picked[0].lstrip()  # the space is already there
    return picked


def _sentence_starts(tokens: tuple[str, ...]) -> list[int]:
    """Where the corpus's sentences start (the token after an end mark; 0 too)."""
    starts = [0]
    starts += [i + 1 for i, t in enumerate(tokens[:-1]) if t.strip() in SENTENCE_ENDS]
    return starts


def _continued_at(tokens: tuple[str, ...], text: str) -> int | None:
    """The token after the longest tail of `text` (up to MATCHED_TOKENS) found in the
    corpus; None when not even its last token is there."""
    tail = [t.strip() for t in _joined_spaces(tokenize(text)) if t.strip()][-MATCHED_TOKENS:]
    stripped = [t.strip() for t in tokens]
    size = len(stripped)
    for length in range(len(tail), 0, -1):
        wanted = tail[-length:]
        for end in range(size):  # the corpus wraps around, so the tail may too
            if all(stripped[(end - length + 1 + k) % size] == wanted[k] for k in range(length)):
                return (end + 1) % size
    return None


def count_prompt_tokens(text: str) -> int:
    """A rough prompt size, as a tokenizer would count it (at least 1)."""
    return max(1, len(tokenize(text)))
