"""A line Textual draws is freed when it is let go, not left for the collector."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tokensales_tui.ui import acyclic_strips

STYLE = Style(bold=True)


@pytest.fixture(autouse=True)
def collector_off() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    gc.collect()
    yield
    if enabled:
        gc.enable()


def to_itself(strip: Strip) -> None:
    """What the compositor and a widget's lines ask of a strip as long as they are."""
    length = strip.cell_length
    strip.crop_extend(0, length, None)
    strip.adjust_cell_length(length, STYLE)
    strip.divide([length])


def drawn_and_let_go(asked: Callable[[Strip], None]) -> int:
    """How many objects the collector finds after a strip asked ``asked`` is let go."""
    strip = Strip([Segment("hello", STYLE), Segment(" world")], 11)
    asked(strip)
    del strip
    return gc.collect()


def test_textuals_strips_still_cache_themselves() -> None:
    # When this fails, Textual no longer keeps a strip in its own caches: drop
    # acyclic_strips.
    def textuals(strip: Strip) -> None:
        length = strip.cell_length
        acyclic_strips._crop_extend(strip, 0, length, None)
        acyclic_strips._adjust_cell_length(strip, length, STYLE)
        acyclic_strips._divide(strip, [length])

    assert drawn_and_let_go(textuals) > 0


def test_a_strip_asked_for_itself_is_freed_when_let_go() -> None:
    acyclic_strips.use_acyclic_strips()
    assert drawn_and_let_go(to_itself) == 0


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("crop_extend", (0, 11, None)),
        ("crop_extend", (0, 15, STYLE)),
        ("crop_extend", (2, 11, None)),
        ("crop_extend", (0, 4, None)),
        ("adjust_cell_length", (11, None)),
        ("adjust_cell_length", (15, STYLE)),
        ("adjust_cell_length", (4, None)),
        ("divide", ([11],)),
        ("divide", ([11, 20],)),
        ("divide", ([4, 11],)),
        ("divide", ([4],)),
        ("divide", ([],)),
    ],
)
def test_the_lines_are_those_textual_draws(name: str, args: tuple[object, ...]) -> None:
    def drawn(method: Callable[..., object]) -> list[tuple[str, int]]:
        strip = Strip([Segment("hello", STYLE), Segment(" world")], 11)
        out = method(strip, *args)
        strips = list(out) if isinstance(out, list | tuple) else [out]
        return [(s.text, s.cell_length) for s in strips]  # type: ignore[attr-defined]

    ours = getattr(acyclic_strips, name)
    textuals = getattr(acyclic_strips, f"_{name}")
    assert drawn(ours) == drawn(textuals)
