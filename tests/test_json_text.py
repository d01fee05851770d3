"""The capped JSON printer of the detail view, without a screen."""

from __future__ import annotations

import json

from tokensales_tui.ui.json_text import full_json, preview_json


def test_preview_matches_json_dumps_for_ordinary_objects() -> None:
    raw = {"a": [], "b": {}, "c": [1, 2.5, None, True, {"d": "é"}], "e": {"f": [[]]}}
    preview = preview_json(raw)
    assert preview.lines == json.dumps(raw, indent=2, ensure_ascii=False).split("\n")
    assert not preview.capped
    assert json.loads("\n".join(preview.lines)) == raw


def test_preview_caps_strings_depth_and_size() -> None:
    deep: dict[str, object] = {}
    cursor = deep
    for _ in range(60):
        cursor["d"] = {"x": 1}
        cursor = cursor["d"]  # type: ignore[assignment]
    preview = preview_json({"s": "x" * 10_005, "deep": deep})
    assert preview.capped
    assert f'  "s": "{"x" * 10_000}… (5 more characters)",' in preview.lines
    assert any(line.strip() == '"d": {…}' for line in preview.lines)

    many = preview_json(list(range(5_000)))
    assert many.capped and len(many.lines) == 2_001 and many.lines[-1] == "…"


def test_full_json_escapes_unsafe_characters_but_round_trips() -> None:
    raw = {"x": "\x9b\u2028\u202e\x7f"}
    text = full_json(raw)
    assert text.isascii()
    assert json.loads(text) == raw
    # a lone surrogate, which no UTF-8 holds: U+FFFD, as every route reads one
    assert json.loads(full_json({"x\udc00": "\ud800"})) == {"x\ufffd": "\ufffd"}


def test_preview_stops_at_the_character_budget_and_marks_the_cut() -> None:
    preview = preview_json(["y" * 90] * 100, max_chars=1_000)
    assert preview.capped and preview.lines[-1] == "…"
    assert sum(len(line) + 1 for line in preview.lines[:-1]) <= 1_000


def test_preview_escapes_terminal_controls_in_keys_and_values() -> None:
    raw = {"k\x1b]0;title\x07": "v\x1b[31m\x9b", 3: None}
    preview = preview_json(raw)
    text = "\n".join(preview.lines)
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert json.loads(text) == {"k\x1b]0;title\x07": "v\x1b[31m\x9b", "3": None}


def test_preview_of_unprintable_numbers_is_cut_not_raised() -> None:
    preview = preview_json({"n": 10**5000})
    assert preview.capped and preview.lines == ["{", '  "n": …', "}"]
