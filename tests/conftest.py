"""Project-wide test policy.

- ``MESA_REQUIRE_INTEGRATION=1`` (set by ``.ci/run``) turns every skipped test into a failure:
  an integration test skipped for a missing broker or browser must never pass CI silently.
- Tests marked ``real_pi`` need a real Raspberry Pi; they are deselected unless ``MESA_REAL_PI=1``.
"""

from __future__ import annotations

import os

import pytest

STRICT = os.environ.get("MESA_REQUIRE_INTEGRATION") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("MESA_REAL_PI") == "1":
        return
    keep, drop = [], []
    for item in items:
        (drop if item.get_closest_marker("real_pi") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if STRICT and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under MESA_REQUIRE_INTEGRATION=1, which forbids skips: {reason}"


# ── a real Mosquitto for the broker tests (appended by the hub-link work) ───
@pytest.fixture(scope="session")
def mosquitto(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A private Mosquitto on 127.0.0.1 (fresh process, config, port) for the whole session,
    with accounts for the hub and tables t1…t12 (see :mod:`support.mosquitto`)."""
    from support.mosquitto import have_mosquitto, start_broker

    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    broker = start_broker(tmp_path_factory.mktemp("mosquitto"))
    yield broker
    broker.stop()
