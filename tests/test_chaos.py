"""The seeded chaos run (see ``tests/chaos.py``): a fixed seed in CI, longer by hand."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from .chaos import ChaosReport, is_allowed, request_kind, run_chaos

KEYS = int(os.environ.get("CHAOS_KEYS", "400"))
SEED = int(os.environ.get("CHAOS_SEED", "20261125"))
WALK_KEYS = 300
"""Keys enough for the walk to reach every part of the app it is checked for."""
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
    if report.keys >= WALK_KEYS:  # the keys went all over the app, not into one form
        assert report.unreached() == [], report.summary()


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


def test_requests_are_counted_by_the_interface_s_name_for_them() -> None:
    assert request_kind("DELETE", "/v1/items/itm_1") == "DELETE /v1/items/{id}"
    assert request_kind("GET", "/collections") == "GET /collections"
    assert request_kind("DELETE", "/v1/items") is None


def test_a_walk_stuck_in_a_form_is_told_from_one_that_went_all_over_the_app() -> None:
    # What 500 keys of the walk that drew every key from one pool did at the CI seed.
    stuck = ChaosReport(seed=1, keys=500, form_keys=212)
    stuck.screens = Counter(ProfileFormScreen=212, BrowseScreen=107, DiscardScreen=100)
    stuck.tabs = Counter(assets=38, collections=35, items=25, webhooks=7, payouts=2)
    stuck.requests = Counter({"GET /v1/items": 6, "POST /auth/getAccessToken": 3})
    assert stuck.unreached() == [
        "the main screen had 107 keys of 500",
        "no detail view",
    ]
    walked = ChaosReport(seed=1, keys=500, form_keys=30)
    walked.screens = Counter(BrowseScreen=348, DetailScreen=67, WebhookForm=15)
    walked.tabs = Counter(assets=128, collections=66, payouts=59)
    walked.requests = Counter({"GET /v1/assets": 10})
    assert walked.unreached() == []
