"""The saved cascade: both halves, the switch and the classifier round-trip; a damaged
value is no cascade."""

from __future__ import annotations

from pathlib import Path

from client.services.cascade.saved_cascade import CascadePart, CascadeProfile, SavedCascade
from client.services.servers.servers import ServerChoice
from client.services.storage.stores import open_stores


def test_round_trip_and_damage(tmp_path: Path) -> None:
    stores = open_stores(tmp_path / "t.sqlite3")
    saved = SavedCascade(stores)
    assert saved.load() == CascadeProfile()
    fast = CascadePart.of(ServerChoice("Local", "http://127.0.0.1:1", "openai", is_local=True), "s")
    strong = CascadePart.of(ServerChoice("Lab", "http://127.0.0.1:2", "ollama", "Lab"), "b:7b")
    saved.save(CascadeProfile(fast, strong, on=True))
    again = SavedCascade(stores).load()
    assert again == CascadeProfile(fast, strong, True) and again.complete
    assert again.strong is not None and again.strong.choice.api_key_name == "Lab"
    assert not again.classify  # off unless asked for
    saved.save(CascadeProfile(fast, strong, on=True, classify=True))
    assert SavedCascade(stores).load().classify
    stores.settings.set("cascade", {"fast": {"name": "x"}, "strong": 3, "on": True})
    damaged = SavedCascade(stores).load()
    assert damaged.fast is None and damaged.strong is None and not damaged.complete


def test_without_a_data_dir_it_lasts_the_run() -> None:
    saved = SavedCascade(None)
    profile = CascadeProfile(on=True)
    saved.save(profile)
    assert saved.load() == profile
