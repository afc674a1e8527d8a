"""Paced display (client/core/pacing.py): steady words from bursts, never the first
token held, never more than a second or MAX_HELD characters behind, nothing lost."""

from __future__ import annotations

from client.core.pacing import PaceLimits, Pacer

FRAME_S = 1 / 60


def frames(pacer: Pacer, start_s: float, end_s: float) -> list[tuple[float, str]]:
    shown = []
    now = start_s
    while now < end_s:
        text = pacer.tick(now)
        if text:
            shown.append((now, text))
        now += FRAME_S
    return shown


def test_the_first_text_is_shown_at_once() -> None:
    pacer = Pacer()
    assert pacer.arrive("Hello", 0.0) == "Hello"
    assert not pacer.holding


def test_a_burst_is_spread_over_frames_word_by_word() -> None:
    pacer = Pacer()
    pacer.arrive("First ", 0.0)
    burst = "".join(f"word{i} " for i in range(18))
    assert pacer.arrive(burst, 3.0) == ""  # held, to be shown at a pace
    shown = frames(pacer, 3.0, 4.01)
    assert "".join(text for _, text in shown) == burst  # all of it within the second
    assert len(shown) > 9  # in many frames, not one
    assert all(text.endswith(" ") for _, text in shown)  # whole words


def test_nothing_is_held_longer_than_the_lag() -> None:
    pacer = Pacer(PaceLimits(max_lag_s=1.0, least_chars_per_s=1.0))
    pacer.arrive("a", 0.0)
    pacer.arrive("x" * 50, 0.5)
    shown = frames(pacer, 0.5, 1.52)
    assert "".join(text for _, text in shown) == "x" * 50
    assert shown[-1][0] <= 1.5 + FRAME_S


def test_never_more_than_max_held_characters() -> None:
    pacer = Pacer(PaceLimits(max_held_chars=100))
    pacer.arrive("a", 0.0)
    shown = pacer.arrive("y" * 250, 0.1)
    assert len(shown) == 150 and pacer.held_chars == 100


def test_a_fast_answer_is_not_slowed() -> None:
    pacer = Pacer()
    pacer.arrive("go ", 0.0)
    held_most = 0
    for frame in range(1, 121):  # 2 s at 1,000 characters a second
        now = frame * FRAME_S
        pacer.arrive("z" * 16 + " ", now)
        pacer.tick(now)
        held_most = max(held_most, pacer.held_chars)
    assert held_most < 400  # about what arrives in well under a second


def test_flush_gives_back_everything_held() -> None:
    pacer = Pacer()
    pacer.arrive("one ", 0.0)
    pacer.arrive("two three ", 0.5)
    assert pacer.flush() == "two three " and not pacer.holding


def test_chinese_text_without_spaces_is_cut_by_characters() -> None:
    pacer = Pacer()
    pacer.arrive("天", 0.0)
    text = "空是蓝色的因为瑞利散射" * 4
    pacer.arrive(text, 1.0)
    shown = frames(pacer, 1.0, 2.05)
    assert "".join(t for _, t in shown) == text and len(shown) > 3
