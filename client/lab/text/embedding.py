"""Stand-in embeddings: the same text always gives the same unit vector.

Good enough to exercise clients (shapes, types, normalisation); a vector says nothing
about meaning. 384 dimensions, as all-minilm (the model in Ollama's embed examples).
"""

from __future__ import annotations

import hashlib
import math
import random

DIMENSIONS = 384


def embed_texts(texts: list[str], dimensions: int = DIMENSIONS) -> list[list[float]]:
    return [_vector(text, dimensions) for text in texts]


def _vector(text: str, dimensions: int) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    rng = random.Random(seed)
    values = [rng.gauss(0.0, 1.0) for _ in range(dimensions)]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [round(v / norm, 7) for v in values]
