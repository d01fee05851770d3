"""The seeded chaos run (see ``tests/chaos.py``): a fixed seed in CI, longer by hand."""

from __future__ import annotations

import os

import pytest

from .chaos import ChaosReport, is_allowed, run_chaos

KEYS = int(os.environ.get("CHAOS_KEYS", "500"))
SEED = int(os.environ.get("CHAOS_SEED", "20261125"))
SECONDS = float(os.environ.get("CHAOS_SECONDS", "60" if KEYS <= 500 else "36000"))


async def test_random_keys_against_a_misbehaving_service_break_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def progress(report: ChaosReport) -> None:
        with capsys.disabled():
            print(f"\n{report.summary()}", flush=True)

    report = await run_chaos(SEED, KEYS, seconds=SECONDS, progress=progress if KEYS > 500 else None)
    with capsys.disabled():
        print("\n" + report.summary())
    assert report.keys > 100, report.summary()
    assert report.problems == [], report.summary()


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/v1/items", True),
        ("DELETE", "/v1/items/itm_1", True),
        ("DELETE", "/v1/items/%2E%2E", True),
        ("DELETE", "/v1/items", False),
        ("DELETE", "/v1/items/..", False),
        ("DELETE", "/v1/items/.", False),
        ("DELETE", "/", False),
        ("DELETE", "/collection/a/b", False),
        ("GET", "/admin", False),
    ],
)
def test_the_request_check_knows_the_interface(method: str, path: str, allowed: bool) -> None:
    assert is_allowed(method, path) is allowed
