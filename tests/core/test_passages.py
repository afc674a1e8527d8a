from __future__ import annotations

from client.core.passages import (
    MAX_LINE_CHARS,
    MAX_TOKENS,
    TARGET_TOKENS,
    choose_terms,
    cut_passages,
    estimate_tokens,
    fts_query,
    index_terms,
    query_terms,
)


def numbered(lines: list[str]) -> list[tuple[int, str]]:
    return list(enumerate(lines, start=1))


def test_short_document_is_one_passage_with_its_line_range() -> None:
    passages = list(cut_passages(numbered(["", "Title", "", "Body line.", ""])))
    assert [(p.line_start, p.line_end, p.text) for p in passages] == [(2, 4, "Title\n\nBody line.")]


def test_long_document_is_cut_at_blank_lines_within_the_token_bounds() -> None:
    paragraph = " ".join(["word"] * 60)
    lines: list[str] = []
    for _ in range(20):
        lines += [paragraph, paragraph, ""]
    passages = list(cut_passages(numbered(lines)))
    assert len(passages) > 3
    for passage in passages[:-1]:
        assert TARGET_TOKENS <= passage.tokens <= MAX_TOKENS
        assert lines[passage.line_end] == ""  # ends just before a blank line
    # Every non-blank line is in exactly one passage, in order, with no gap.
    covered = [n for p in passages for n in range(p.line_start, p.line_end + 1)]
    assert covered == sorted(set(covered))
    assert {n for n, text in numbered(lines) if text} <= set(covered)


def test_a_huge_line_is_cut_into_pieces_that_keep_its_number() -> None:
    line = "x" * (MAX_LINE_CHARS * 10)
    passages = list(cut_passages([(1, "before"), (2, line), (3, "after")]))
    assert "".join(p.text for p in passages).replace("\n", "") == "before" + line + "after"
    assert all(p.tokens <= MAX_TOKENS for p in passages)
    assert {p.line_start for p in passages} <= {1, 2}
    assert passages[-1].line_end == 3


def test_pieces_of_one_line_are_joined() -> None:
    passages = list(cut_passages([(1, "Cat "), (1, "food"), (2, "dogs")]))
    assert passages[0].text == "Cat food\ndogs"


def test_chinese_is_indexed_as_characters_and_pairs() -> None:
    words, pairs = index_terms("Trip to 北京大学 and back")
    assert "北京大学" not in words and "Trip to" in words and "and back" in words
    assert pairs.split() == ["北", "京", "大", "学", "北京", "京大", "大学"]


def test_query_terms_drop_stopwords_and_pair_unspaced_runs() -> None:
    assert query_terms("Where did we stay in Kyoto?") == ["stay", "kyoto"]
    assert query_terms("北京的烤鸭") == ["北京", "烤鸭"]  # no pair across 的
    assert query_terms("我记得烤鸭跟面条有关") == [
        "我记",
        "记得",
        "得烤",
        "烤鸭",
        "面条",
        "条有",
        "有关",
    ]
    assert query_terms("猫") == ["猫"]
    assert query_terms("Thai ภาษาไทย") == ["thai", "ภา", "าษ", "ษา", "าไ", "ไท", "ทย"]


def test_fts_query_quotes_every_term() -> None:
    assert fts_query(['say "hi"', "OR", "NEAR"]) == '"say ""hi""" OR "OR" OR "NEAR"'


def test_token_estimate_counts_words_and_unspaced_characters() -> None:
    assert estimate_tokens("one two three") == 3
    assert estimate_tokens("北京大学") == 4


def test_common_terms_are_left_out_only_when_rarer_ones_are_asked() -> None:
    counts = {"notes": 3000, "kyoto": 4, "hotel": 40, "absent": 0}
    assert choose_terms(["notes", "hotel", "kyoto", "absent"], counts, 6000) == ["kyoto", "hotel"]
    assert choose_terms(["notes"], counts, 6000) == ["notes"]
    # In a small index nothing is common: ranking a few hundred passages is cheap.
    assert choose_terms(["notes", "kyoto"], {"notes": 400, "kyoto": 4}, 500) == ["kyoto", "notes"]
