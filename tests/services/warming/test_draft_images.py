"""The images waiting in the composer count in the draft's predicted wait."""

from __future__ import annotations

from client.core.images import ImagePart
from client.services.warming.warming_policy import WarmingPolicy

PHOTO = ImagePart(b"jpeg bytes", "image/jpeg", 1024, 768)  # 2 x 2 tiles: 1,024 tokens


def test_an_attached_image_adds_its_tokens_and_lengthens_the_predicted_wait() -> None:
    policy = WarmingPolicy()
    for tokens, ttft_ms in [(20, 60.0), (500, 300.0), (2000, 1100.0)]:
        policy.predictor.observe(tokens, ttft_ms)  # prefill grows with the prompt
    plain = policy.predict_draft("what is this?")
    plain_tokens = policy.draft.tokens if policy.draft is not None else 0
    waiting = [PHOTO]
    policy.draft_images = lambda: waiting
    seen = policy.predict_draft("what is this?")
    assert policy.draft is not None and policy.draft.tokens == plain_tokens + 1024
    assert plain is not None and seen is not None and seen.ttft_ms > plain.ttft_ms
    waiting.clear()  # removed from the composer: the wait is the text's again
    assert policy.predict_draft("what is this?") == plain
