"""``mesa hub``'s start line names the broker it connected to (not the dashboard's port)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.mosquitto import HUB_PASSWORD


def test_the_start_line_names_the_brokers_address(tmp_path: Path, mosquitto: Any) -> None:
    env = {**os.environ, "MESA_HUB_PASSWORD": HUB_PASSWORD}
    env.pop("MESA_WEB_PORT", None)
    hub = subprocess.Popen(
        [
            sys.executable, "-m", "mesa", "hub", "--db", str(tmp_path / "hub.sqlite3"),
            "--broker-host", "127.0.0.1", "--broker-port", str(mosquitto.port),
            "--port", "18999", "--no-web", "--wait", "20",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert hub.stdout is not None
        line = hub.stdout.readline()
    finally:
        hub.terminate()
        _, err = hub.communicate(timeout=30)
    assert line.startswith("mesa hub: online"), err
    assert f"broker mqtt://127.0.0.1:{mosquitto.port}," in line
    assert "18999" not in line and "no dashboard" in line
