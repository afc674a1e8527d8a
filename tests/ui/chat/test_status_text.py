"""The window's own words for the services' facts say, in English, exactly what the
services' English labels say (the command line and logs use those)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from PySide6.QtCore import QLocale

from client.core.prediction import ModelState, Prediction
from client.services.servers.model_status import (
    ModelStatus,
    ServerPolicy,
    WarmSettings,
    describe_policy,
)
from client.ui.common.status_text import model_state_text, policy_text, prediction_text


@pytest.mark.parametrize("policy", [*ServerPolicy, None])
@pytest.mark.parametrize("keep_alive", ["30m", None])
@pytest.mark.parametrize("server", ["", "The local engine"])
def test_policy_sentences_match_the_services(
    qapp: Any, policy: ServerPolicy | None, keep_alive: str | None, server: str
) -> None:
    expected = describe_policy(policy, WarmSettings(keep_alive=keep_alive), server)
    assert policy_text(policy, keep_alive, server) == expected


@pytest.mark.parametrize(
    "status",
    [
        ModelStatus(None),
        ModelStatus(ModelState.COLD),
        ModelStatus(ModelState.LOADING),
        ModelStatus(ModelState.WARM),
    ],
)
def test_model_states_match_the_services(qapp: Any, status: ModelStatus) -> None:
    assert model_state_text(status) == status.label()


@pytest.mark.parametrize("left_s", [40.2, 29 * 60 + 10, 2.4 * 3600])
def test_time_left_matches_the_services(qapp: Any, left_s: float) -> None:
    status = ModelStatus(ModelState.WARM, time.monotonic() + left_s)
    assert model_state_text(status) == status.label()
    assert model_state_text(status).startswith("warm · ")


@pytest.mark.parametrize("ttft_ms", [3.0, 449.0, 999.0, 1000.0, 12_345.0])
@pytest.mark.parametrize("load_unknown", [False, True])
def test_predictions_match_the_core(qapp: Any, ttft_ms: float, load_unknown: bool) -> None:
    QLocale.setDefault(QLocale.c())  # the core's plain figures (1000); the window's follow QLocale
    prediction = Prediction(ttft_ms, load_unknown=load_unknown)
    assert prediction_text(prediction) == prediction.label()
