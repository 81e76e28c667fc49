"""The strict-skip policy really turns a skip into a failure (run in a child pytest)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(tmp_path: Path, strict: bool) -> subprocess.CompletedProcess[str]:
    test = tmp_path / "test_skipper.py"
    test.write_text("import pytest\n\ndef test_needs_broker():\n    pytest.skip('no broker')\n")
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    env = dict(os.environ)
    env.pop("MESA_REQUIRE_INTEGRATION", None)
    if strict:
        env["MESA_REQUIRE_INTEGRATION"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_skip_is_a_failure_when_strict(tmp_path: Path) -> None:
    result = _run(tmp_path, strict=True)
    assert result.returncode == 1, result.stdout
    assert "1 failed" in result.stdout


def test_skip_stays_a_skip_otherwise(tmp_path: Path) -> None:
    result = _run(tmp_path, strict=False)
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout
