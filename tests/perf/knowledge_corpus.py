"""A generated corpus for the knowledge benchmarks: English and Chinese notes with
labelled questions.

Every document is filler text plus three key terms drawn from a shared pool, so each
key term is in many documents and the three together in one only: a question naming
two or three of them (in other words, with stopwords, plurals, a Chinese sentence
around them) has exactly one right document. Deterministic for a seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

SYLLABLES = "ka ri to mu sen lor vex dan pil qua zor mer tis bal fen gor hul jin nev cor".split()
FILLER = (
    "the meeting notes mention that we should review the plan again next week and "
    "keep the budget small while the team works through the open questions about "
    "design testing release schedule and support"
).split()
HAN = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动"
    "同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自"
    "二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日"
    "那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变"
    "条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总"
    "次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指"
    "几九区强放决西被干做必战先回则任取据处理府研质"
)
QUESTION_EN = [
    "What did I write about {a} and {b}?",
    "Where are my notes on the {a} {b} {c}?",
    "Tell me about {a}s with {b}",
    "{a} {b} {c}",
]
QUESTION_ZH = ["关于{a}和{b}的笔记写了什么？", "{a}{b}{c}在哪里", "我记得{a}跟{b}有关"]


@dataclass(frozen=True)
class Question:
    text: str
    answer: str  # the file name that answers it
    chinese: bool


def _english_word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(3))


def _han_word(rng: random.Random) -> str:
    return rng.choice(HAN) + rng.choice(HAN)


def _filler_en(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(FILLER) for _ in range(words))


def _filler_zh(rng: random.Random, chars: int) -> str:
    return "".join(rng.choice(HAN[:40]) for _ in range(chars))


def write_corpus(
    folder: Path, documents: int = 5000, questions: int = 200, seed: int = 14
) -> list[Question]:
    """Write `documents` notes into folder; return the labelled questions."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    pool_en = list(dict.fromkeys(_english_word(rng) for _ in range(documents // 4)))
    pool_zh = list(dict.fromkeys(_han_word(rng) for _ in range(documents // 4)))
    asked = set(rng.sample(range(documents), questions))
    labelled: list[Question] = []
    for n in range(documents):
        chinese = n % 3 == 0
        pool = pool_zh if chinese else pool_en
        keys = rng.sample(pool, 3)
        name = f"note{n:05d}.{'txt' if chinese else 'md'}"
        (folder / name).write_text(_document(rng, keys, chinese), encoding="utf-8")
        if n in asked:
            labelled.append(_question(rng, keys, name, chinese))
    return labelled


def _document(rng: random.Random, keys: list[str], chinese: bool) -> str:
    lines = [f"# {'笔记' if chinese else 'Note'} {rng.randint(1, 10**6)}", ""]
    for paragraph in range(4):
        if chinese:
            text = _filler_zh(rng, 60) + keys[paragraph % 3] + _filler_zh(rng, 40)
        else:
            text = f"{_filler_en(rng, 25)} {keys[paragraph % 3]} {_filler_en(rng, 20)}"
        lines += [text, ""]
    return "\n".join(lines)


def _question(rng: random.Random, keys: list[str], name: str, chinese: bool) -> Question:
    a, b, c = rng.sample(keys, 3)
    template = rng.choice(QUESTION_ZH if chinese else QUESTION_EN)
    return Question(template.format(a=a, b=b, c=c), name, chinese)
