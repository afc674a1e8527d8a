"""The cascade's router: does a question go to the fast model or the strong one?

    decision = route_by_rules("Prove that √2 is irrational")   # strong, "a proof or ..."
    decision = await decide(text, classify=classifier, budget_ms=150)

Rules come first and are pure (no I/O, no clock): long text, code, maths, a request to
prove / derive / explain why / compare / go step by step, translation and several
questions in one go to the strong model; the rest (greetings, short facts, chit-chat)
to the fast one. English and Chinese. tests/services/cascade/test_router.py measures them on a
labelled set of questions.

A classification call to the fast model may refine them, under a hard budget: when it
has not answered within `budget_ms` it is cancelled and the rules decide, and the
decision says so (the waterfall's "understanding" stage and `tachy chat --json` show
the reason). The planner takes the decision (client/services/planning/planner.py).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from enum import StrEnum

DEFAULT_BUDGET_MS = 150.0
LONG_WORDS = 60  # English words: a long message is usually a hard one
LONG_CJK = 120  # Chinese characters


class Tier(StrEnum):
    FAST = "fast"
    STRONG = "strong"

    @property
    def other(self) -> Tier:
        return Tier.STRONG if self is Tier.FAST else Tier.FAST


@dataclass(frozen=True, slots=True)
class RouteDecision:
    tier: Tier
    reason: str  # a short phrase for the waterfall and --json
    decided_ms: float = 0.0
    by: str = "rules"  # rules | classifier | user | fallback
    # The fast model's classification, when asked: answered | out_of_budget | failed |
    # no_answer ("": not asked). Past its budget the rules decide, and the waterfall says so.
    classifier: str = ""


# A classifier asks the fast model; None means it gave no usable answer.
Classifier = Callable[[str], Awaitable["Tier | None"]]

_CODE = re.compile(
    r"```|\b(def|class|import|return|lambda|async|await|struct|fn|const|var|let)\s"
    r"|\b(python|javascript|typescript|java|rust|golang|c\+\+|sql|regex|bash|shell"
    r"|script|function|compile[sr]?|bug|stack ?trace|exception|segfault|api|json"
    r"|algorithm|refactor|unit tests?)\b"
    r"|[{};]\s*$|\w+\(\)|==|!=|=>|->"
    r"|代码|函数|编程|程序|脚本|算法|编译|报错|正则",
    re.IGNORECASE | re.MULTILINE | re.ASCII,
)
_MATHS = re.compile(
    r"[√∫∑∏∞≤≥≠±∂]|\\(frac|int|sum|sqrt)|\d+\s*[\^*/]\s*\d+|\d+\s*[+\-]\s*\d+\s*[=x]"
    r"|[a-z]\s*\^\s*\d|\b(integral|derivative|equation|theorem|lemma|matrix|eigen\w*"
    r"|probability|solve|factori[sz]e|prime|irrational|limit of|modulo)\b"
    r"|方程|积分|导数|微分|矩阵|概率|定理|素数|质数|无理数|求解|极限",
    re.IGNORECASE | re.ASCII,
)
_REASONING = re.compile(
    r"\b(prove|proof|derive|derivation|explain why|explain how|compare|comparison"
    r"|contrast|step by step|step-by-step|pros and cons|trade-?offs?|analy[sz]e"
    r"|in detail|justify|evaluate|difference between)\b"
    r"|证明|推导|解释为什么|为什么|比较|对比|一步一步|逐步|分析|详细|区别|优缺点|论证",
    re.IGNORECASE | re.ASCII,
)
_TRANSLATION = re.compile(
    r"\b(translate|translation|in (french|german|spanish|chinese|english|japanese"
    r"|italian|russian|korean))\b|翻译|译成|译为|用英文|用英语|用中文",
    re.IGNORECASE | re.ASCII,
)
_QUESTION_MARKS = re.compile(r"[?？]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


# The rules' reasons, in the order they are tried (the window translates each).
RULE_REASONS = (
    "asks to prove, derive, explain or compare",
    "code",
    "maths",
    "translation",
    "several questions",
    "a long message",
    "a short everyday question",  # none matched: the fast model
)


def route_by_rules(text: str) -> RouteDecision:
    """The rules' decision; the first rule that matches gives the reason."""
    checks = (
        _REASONING.search(text) is not None,
        _CODE.search(text) is not None,
        _MATHS.search(text) is not None,
        _TRANSLATION.search(text) is not None,
        len(_QUESTION_MARKS.findall(text)) >= 2,
        _is_long(text),
    )
    for matched, reason in zip(checks, RULE_REASONS, strict=False):
        if matched:
            return RouteDecision(Tier.STRONG, reason)
    return RouteDecision(Tier.FAST, RULE_REASONS[-1])


def _is_long(text: str) -> bool:
    cjk = len(_CJK.findall(text))
    return cjk > LONG_CJK or len(text.split()) > LONG_WORDS


async def decide(
    text: str,
    classify: Classifier | None = None,
    budget_ms: float = DEFAULT_BUDGET_MS,
    clock: Callable[[], float] = time.perf_counter,
) -> RouteDecision:
    """The rules' decision, refined by `classify` when it answers within the budget.
    The classifier is cancelled at the budget (its stream is closed), never awaited."""
    start = clock()
    rules = route_by_rules(text)
    if classify is None:
        return _timed(rules, start, clock)
    try:
        tier = await asyncio.wait_for(classify(text), budget_ms / 1000)
    except TimeoutError:
        reason = f"{rules.reason} (the classifier took over {budget_ms:.0f} ms)"
        return _timed(RouteDecision(rules.tier, reason, classifier=OUT_OF_BUDGET), start, clock)
    except Exception as error:
        reason = f"{rules.reason} (the classifier failed: {type(error).__name__})"
        return _timed(RouteDecision(rules.tier, reason, classifier="failed"), start, clock)
    if tier is None:
        reason = f"{rules.reason} (no classifier answer)"
        return _timed(RouteDecision(rules.tier, reason, classifier="no_answer"), start, clock)
    return _timed(
        RouteDecision(tier, CLASSIFIED, by="classifier", classifier="answered"), start, clock
    )


OUT_OF_BUDGET = "out_of_budget"
CLASSIFIED = "the fast model's classification"


def _timed(decision: RouteDecision, start: float, clock: Callable[[], float]) -> RouteDecision:
    return replace(decision, decided_ms=round((clock() - start) * 1000, 3))


def chosen_by_user(tier: Tier) -> RouteDecision:
    """An override ("Ask the strong model", re-ask with the other model)."""
    return RouteDecision(tier, f"asked for the {tier.value} model", by="user")


CLASSIFY_PROMPT = (
    "Reply with one word. 'fast' if a small model can answer the message below well "
    "(greetings, short facts, chit-chat); 'strong' if it needs a large model (proofs, "
    "maths, code, analysis, translation, long or several questions).\n\nMessage: "
)


def parse_classification(reply: str) -> Tier | None:
    """The tier a classification reply names, if exactly one."""
    words = set(re.findall(r"[a-z]+", reply.lower()))
    fast, strong = "fast" in words, "strong" in words
    if fast == strong:
        return None
    return Tier.FAST if fast else Tier.STRONG
