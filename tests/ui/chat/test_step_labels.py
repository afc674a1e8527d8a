"""ActionBar's labels are keyed by NextStep's values (so the bar loads before
services.outcomes): every step has one, and none is left over."""

from __future__ import annotations

from client.services.chat.session_events import NextStep
from client.ui.chat.action_bar import STEP_LABELS


def test_every_next_step_has_a_label_and_no_label_is_stale() -> None:
    assert set(STEP_LABELS) == {step.value for step in NextStep}
    assert all(STEP_LABELS[step] for step in NextStep)  # a NextStep finds its own label
