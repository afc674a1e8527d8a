"""The images' cost on the waterfall: bytes, pixels, the client's preparation (a bar
ending when the request was written) and the prompt tokens the server counted; the same
for a request reopened from history; the stage line knows an image is being read."""

from __future__ import annotations

import json

from client.core.events import TokenKind
from client.core.images import ImagePart
from client.core.metrics import compute_metrics
from client.core.timeline import RequestTimeline
from client.services.chat.answer_writer import stage_record
from client.services.hud.hud_model import record_from_request, record_from_stored
from client.services.hud.waterfall import build_waterfall
from client.services.images.cost import note_images, reads_image

MS = 1_000_000
T0 = 10_000 * MS
IMAGES = [
    ImagePart(b"x" * 300_000, "image/jpeg", 1024, 768),
    ImagePart(b"y" * 7_000, "image/png", 64, 64),
]


def sent_with_images() -> RequestTimeline:
    timeline = RequestTimeline()
    timeline.enter_stage("understanding", T0 - 2 * MS)
    assert not reads_image(timeline)
    note_images(timeline, IMAGES, prepare_ms=85.5)
    assert reads_image(timeline)
    timeline.mark_written(T0)
    timeline.enter_stage("answering", T0 + 400 * MS)
    timeline.mark_token(TokenKind.ANSWER, 3, T0 + 400 * MS)
    timeline.close_stages(T0 + 450 * MS)
    return timeline


def image_row(rows: list) -> object:
    [row] = [r for r in rows if r.label.startswith("image ×")]
    return row


def test_the_waterfall_shows_what_the_images_cost() -> None:
    timeline = sent_with_images()
    metrics = compute_metrics(timeline, None, [])
    metrics.prompt_tokens = 1_234
    record = record_from_request(
        metrics, timeline, at=1.0, model="m", server="s", cold=False, outcome="complete"
    )
    row = image_row(build_waterfall(record).rows)
    assert (row.start_ms, row.end_ms) == (-85.5, 0.0)  # prepared before it was written
    assert row.text == "image ×2 · 300 KB · 790,528 px · 1,234 tokens"


def test_a_reopened_request_shows_them_too() -> None:
    timeline = sent_with_images()
    stored = {"stages": json.dumps(stage_record(timeline, None)), "ttft_ms": 400.0, "time": 1.0}
    row = image_row(build_waterfall(record_from_stored(stored)).rows)
    assert row.text == "image ×2 · 300 KB · 790,528 px"
    assert row.start_ms == -85.5


def test_a_request_without_images_has_no_image_row() -> None:
    timeline = RequestTimeline()
    timeline.enter_stage("understanding", T0)
    note_images(timeline, [], 0.0)
    timeline.mark_written(T0)
    record = record_from_request(
        compute_metrics(timeline, None, []), timeline, at=1.0, model="m", server="s",
        cold=False, outcome="complete",
    )  # fmt: skip
    assert not any(r.label.startswith("image") for r in build_waterfall(record).rows)
