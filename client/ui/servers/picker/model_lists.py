"""What the model picker lists: each server's models in the server picker's order (the
local engine first), the server in use and its model, what is known of each model, and
the saved cascade's entry. Plain data; client/ui/servers/server_bar.py shows it.

A server's name heads its models only when the picker holds more than one group: with
one server, the server picker beside it already names it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from client.ui.servers.picker.model_rows import PickerRow, RowKind

if TYPE_CHECKING:
    from client.services.servers.servers import ServerChoice

CASCADE_GROUP = "cascade"


class ModelLists:
    def __init__(self) -> None:
        self.names: dict[object, list[str] | None] = {}  # server key -> models; None: no answer
        self.notes: dict[object, str] = {}  # server key -> why it has no list
        self.in_use: ServerChoice | None = None  # the server the session talks to
        self.model: str | None = None  # its model the user chose
        self.details: dict[tuple[object, str], str] = {}
        self.cascade: str | None = None  # the saved cascade's label
        self.cascade_on = False

    def keep_only(self, keys: set[object]) -> None:
        """Forget the lists of servers no longer listed (but the one in use)."""
        if self.in_use is not None:
            keys = keys | {self.in_use.key}
        self.names = {key: names for key, names in self.names.items() if key in keys}

    def groups(self, choices: Sequence[ServerChoice]) -> list[ServerChoice]:
        """The servers with a list, the local engine first, then as the server picker
        orders them; the server in use even when the picker does not list it (yet)."""
        listed = list(choices)
        if self.in_use is not None and self.in_use.key not in {c.key for c in listed}:
            listed.insert(0, self.in_use)
        listed.sort(key=lambda choice: not choice.is_local)  # stable: the rest keep order
        return [choice for choice in listed if choice.key in self.names]

    def choice(self, key: object, choices: Sequence[ServerChoice]) -> ServerChoice | None:
        extra = [self.in_use] if self.in_use is not None else []
        return next((c for c in [*extra, *choices] if c.key == key), None)

    def rows(
        self, choices: Sequence[ServerChoice], name_of: Callable[[ServerChoice], str]
    ) -> tuple[list[PickerRow], int]:
        """The picker's rows and the current one (-1: none)."""
        from client.core.printable import visible  # (after the first paint: regexes, ~1 ms)

        groups = self.groups(choices)
        headed = len(groups) + (self.cascade is not None) > 1
        rows: list[PickerRow] = []
        current = -1
        wanted = (self.in_use.key if self.in_use else None, self.model)
        for choice in groups:
            server = name_of(choice)
            names = self.names[choice.key]
            if headed:
                rows.append(PickerRow(RowKind.HEADER, server, choice.key, search=server))
            if names is None:
                if headed:
                    note = self.notes.get(choice.key) or _not_reachable()
                    rows.append(PickerRow(RowKind.NOTE, note, choice.key, indented=True))
                continue
            where = "\n" + server.casefold()
            details = self.details
            for name in names:
                shown = visible(name)
                detail = details.get((choice.key, name), "")
                if (choice.key, name) == wanted:
                    current = len(rows)
                search = shown.casefold() + where
                rows.append(
                    PickerRow(RowKind.MODEL, shown, choice.key, name, detail, search, headed)
                )
        if self.cascade is not None:
            if self.cascade_on:
                current = len(rows)
            search = self.cascade.casefold()
            rows.append(PickerRow(RowKind.CASCADE, self.cascade, CASCADE_GROUP, search=search))
        return rows, current


def _not_reachable() -> str:
    return QCoreApplication.translate("ModelPicker", "not reachable")
