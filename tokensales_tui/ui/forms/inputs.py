"""Inputs the forms share: lists typed on one line, suggestions, file paths."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from textual.suggester import Suggester

from ...checks import split_lines, split_list, suggest_events
from ...files import typed_path
from ..widgets.safe_input import SafeInput

__all__ = ["ListInput", "ListSuggester", "PathSuggester", "choice_hint"]


class ListInput(SafeInput):
    """An input for a comma-separated list; a pasted list of lines arrives comma-separated."""

    def pasted(self, text: str) -> str:
        """A list of lines as one comma-separated line (each line trimmed, empty ones
        left out); one line as it is. Lines end where :func:`~tokensales_tui.checks.split_lines`
        says (CR, LF), as the list is read back."""
        lines = [line.strip() for line in split_lines(text) if line.strip()]
        if len(lines) > 1:
            return ", ".join(lines)
        return super().pasted(text)


class ListSuggester(Suggester):
    """Completes the name being typed (after the last comma) from ``known`` names.

    Names already in the list are not suggested again; matching ignores case.
    """

    def __init__(self, known: Iterable[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.known = list(known)

    async def get_suggestion(self, value: str) -> str | None:
        fragment = split_list(value)[-1].lstrip()
        if not fragment:
            return None
        for name in suggest_events(value, self.known):
            if name.casefold().startswith(fragment.casefold()) and len(name) > len(fragment):
                return value + name[len(fragment) :]
        return None


class PathSuggester(Suggester):
    """Completes a file path from the folder being typed (``~`` is expanded for the lookup)."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        folder, slash, start = value.rpartition("/")
        try:
            where = typed_path(folder + slash) if slash else Path(".")
            names = sorted(
                entry.name for entry in os.scandir(where) if entry.name.startswith(start)
            )
        except OSError:
            return None
        names = [name for name in names if not name.startswith(".") or start.startswith(".")]
        if not names or names[0] == start:
            return None
        name = names[0]
        suffix = "/" if (where / name).is_dir() else ""
        return value + name[len(start) :] + suffix


def choice_hint(value: str, choices: Sequence[str], *, limit: int = 8, other: bool = True) -> str:
    """The choices that fit what is typed, e.g. ``polygon · polygon-zkevm — or type another``.

    With nothing typed (or nothing matching) every choice is listed, up to ``limit``.
    """
    typed = value.strip().casefold()
    matching = [c for c in choices if typed and c.casefold().startswith(typed)]
    matching += [c for c in choices if typed and typed in c.casefold() and c not in matching]
    shown = matching or list(choices)
    text = " · ".join(shown[:limit]) + (" · …" if len(shown) > limit else "")
    if matching and typed in (c.casefold() for c in matching):
        return text
    return text + (" — or type another" if other else "")
