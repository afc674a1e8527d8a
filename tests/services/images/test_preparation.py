"""Preparing an attachment: downscaled to the model's input size and re-encoded off the
loop, the original kept; what cannot be sent gets one sentence."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from client.services.images.preparation import (
    MAX_FILE_BYTES,
    ImageProblem,
    Preparation,
    prepare_bytes,
    prepare_file,
    prepare_image,
)


def encoded(size: tuple[int, int], kind: str, mode: str = "RGB", **save: object) -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, (10, 120, 200) if mode == "RGB" else (10, 120, 200, 128)).save(
        out, kind, **save
    )
    return out.getvalue()


def test_a_large_photo_is_cut_to_1024_px_as_jpeg_and_the_original_kept() -> None:
    photo = encoded((4000, 3000), "JPEG")
    attachment = prepare_image(photo, "cat.jpg")
    sent = attachment.sent
    assert (sent.width, sent.height, sent.mime) == (1024, 768, "image/jpeg")
    assert Image.open(io.BytesIO(sent.data)).size == (1024, 768)
    assert attachment.original == photo and attachment.downscaled
    assert (attachment.original_width, attachment.original_height) == (4000, 3000)
    assert attachment.prepare_ms > 0


def test_the_servers_input_size_wins_and_screenshots_stay_png() -> None:
    shot = prepare_image(encoded((1800, 900), "PNG"), how=Preparation(longest_side=896))
    assert (shot.sent.width, shot.sent.height, shot.sent.mime) == (896, 448, "image/png")


def test_a_small_image_goes_as_it_is() -> None:
    small = encoded((300, 200), "WEBP")
    attachment = prepare_image(small)
    assert attachment.sent.data == small and attachment.sent.mime == "image/webp"
    assert not attachment.downscaled


def test_without_the_downscale_the_photo_goes_whole() -> None:
    photo = encoded((2000, 1500), "JPEG")
    attachment = prepare_image(photo, how=Preparation(downscale=False))
    assert attachment.sent.data == photo and attachment.sent.pixels == 3_000_000


def test_a_gif_is_sent_as_its_first_frame_in_png() -> None:
    frames = [Image.new("P", (40, 30), color) for color in (1, 2, 3)]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:])
    attachment = prepare_image(out.getvalue(), "wave.gif")
    assert attachment.sent.mime == "image/png" and (attachment.sent.width, 30)[0] == 40
    assert attachment.original_mime == "image/gif"


def test_transparency_is_kept_in_png() -> None:
    attachment = prepare_image(encoded((2048, 100), "PNG", mode="RGBA"))
    assert attachment.sent.mime == "image/png"
    assert Image.open(io.BytesIO(attachment.sent.data)).mode == "RGBA"


@pytest.mark.parametrize(
    ("data", "name", "sentence"),
    [
        (b"just some text", "notes.txt", "“notes.txt” is not an image Tachy can read."),
        (
            encoded((8, 8), "BMP"),
            "old.bmp",
            "“old.bmp” is a BMP image; send PNG, JPEG, WebP or GIF.",
        ),
        (
            encoded((800, 600), "PNG")[:200],
            "cut.png",
            "“cut.png” could not be read: the file is damaged.",
        ),
    ],
)
def test_what_cannot_be_sent_gets_one_sentence(data: bytes, name: str, sentence: str) -> None:
    with pytest.raises(ImageProblem) as caught:
        prepare_image(data, name)
    assert str(caught.value) == sentence


async def test_a_file_too_big_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.png"
    with huge.open("wb") as out:
        out.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(ImageProblem) as caught:
        await prepare_file(huge)
    assert str(caught.value) == "“huge.png” is too big to send (40 MB; the limit is 40 MB)."


async def test_preparing_runs_in_a_worker_thread(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    path.write_bytes(encoded((1500, 1500), "PNG"))
    from_file = await prepare_file(path)
    from_bytes = await prepare_bytes(path.read_bytes(), "a.png")
    assert from_file.sent == from_bytes.sent and from_file.name == "a.png"
    with pytest.raises(ImageProblem, match="could not be read"):
        await prepare_file(tmp_path / "missing.png")
