"""``mesa install`` writes only inside its root, and installs only an enrolment bundle that is
one: each attack of issue 21 is refused with a reason and changes nothing (the installation
itself: tests/test_install.py)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from mesa.cli import main


def snapshot(*folders: Path) -> list[dict[str, tuple[str, int, bytes | str]]]:
    """Every entry under each folder: kind, mode and content (a link: its target)."""
    out = []
    for folder in folders:
        seen: dict[str, tuple[str, int, bytes | str]] = {}
        for p in sorted([folder, *folder.rglob("*")]):
            st = p.lstat()
            rel = str(p.relative_to(folder))
            if stat.S_ISLNK(st.st_mode):
                seen[rel] = ("link", 0, os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                seen[rel] = ("file", stat.S_IMODE(st.st_mode), p.read_bytes())
            else:
                seen[rel] = ("dir", stat.S_IMODE(st.st_mode), "")
        out.append(seen)
    return out


def refused(capsys: pytest.CaptureFixture[str], args: list[str], *watched: Path) -> str:
    """``mesa <args>`` fails, says why, and leaves every ``watched`` folder as it was."""
    before = snapshot(*watched)
    code = main(args)
    err = capsys.readouterr().err
    assert code == 1, err
    assert snapshot(*watched) == before
    assert err.startswith("mesa install ") and len(err) > 30
    return err


def victim(tmp_path: Path) -> Path:
    """A folder outside the root with a file in it, mode 0700: what a link points at."""
    v = tmp_path / "victim"
    v.mkdir(mode=0o700)
    os.chmod(v, 0o700)
    (v / "precious").write_text("keep me")
    return v


HUB = ["install", "hub", "--hub-host", "mesa-hub.local", "--no-start", "--root"]


def test_install_refuses_a_symlinked_folder_inside_its_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, elsewhere = tmp_path / "root", victim(tmp_path)
    root.mkdir()
    (root / "etc").symlink_to(elsewhere)
    err = refused(capsys, [*HUB, str(root)], root, elsewhere)
    assert "etc is a symbolic link" in err and str(elsewhere) in err
    table = ["install", "table", "--no-start", "--root", str(root)]
    assert "etc is a symbolic link" in refused(capsys, table, root, elsewhere)


def test_install_refuses_a_symlinked_var_lib_mesa(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, elsewhere = tmp_path / "root", victim(tmp_path)
    (root / "var/lib").mkdir(parents=True)
    (root / "var/lib/mesa").symlink_to(elsewhere)
    err = refused(capsys, [*HUB, str(root)], root, elsewhere)
    assert "var/lib/mesa is a symbolic link" in err
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o700  # its mode is not changed


def test_install_refuses_a_root_that_is_a_symlink(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = victim(tmp_path)
    root = tmp_path / "root"
    root.symlink_to(elsewhere)
    err = refused(capsys, [*HUB, str(root)], elsewhere)
    assert "symbolic link" in err
    # A root reached through a linked folder is refused the same way.
    (tmp_path / "via").symlink_to(tmp_path)
    assert "symbolic link" in refused(capsys, [*HUB, str(tmp_path / "via" / "fresh")], tmp_path)


def test_a_planted_tmp_link_never_has_its_target_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, elsewhere = tmp_path / "root", victim(tmp_path)
    assert main([*HUB, str(root)]) == 0
    conf = root / "etc/mosquitto/conf.d/mesa.conf"
    conf.write_text("# edited: install puts it back\n")
    planted = conf.with_name("mesa.conf.tmp")
    planted.symlink_to(elsewhere / "precious")
    assert main([*HUB, str(root)]) == 0
    assert (elsewhere / "precious").read_text() == "keep me"
    assert planted.is_symlink() and not conf.is_symlink()
    assert "listener" in conf.read_text()
    # Where the broker's and TLS files are written (their own code, fixed temporary names),
    # a planted link is refused before anything is written.
    (root / "etc/mesa/tls/ca.pem").unlink()
    (root / "etc/mesa/tls/ca.pem.tmp").symlink_to(elsewhere / "precious")
    err = refused(capsys, [*HUB, str(root)], root, elsewhere)
    assert "etc/mesa/tls/ca.pem.tmp is a symbolic link" in err


def test_install_refuses_a_planted_link_at_a_file_it_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, elsewhere = tmp_path / "root", victim(tmp_path)
    (root / "etc/mesa").mkdir(parents=True)
    (root / "etc/mesa/table.toml").symlink_to(elsewhere / "precious")
    table = ["install", "table", "--no-start", "--root", str(root)]
    assert "etc/mesa/table.toml is a symbolic link" in refused(capsys, table, root, elsewhere)


# ── the enrolment bundle ─────────────────────────────────────────────────────────────────
@pytest.fixture(scope="module")
def hub_bundle(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("hub")
    assert main([*HUB, str(root)]) == 0
    data: dict[str, object] = json.loads((root / "etc/mesa/enrol.json").read_text())
    return data


def bundle_file(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "enrol.json"
    path.write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
    return path


def with_hub(bundle: dict[str, object], **changes: object) -> dict[str, object]:
    hub = dict(bundle["hub"])  # type: ignore[call-overload]
    for k, v in changes.items():
        if v is None:
            hub.pop(k, None)
        else:
            hub[k] = v
    return {**bundle, "hub": hub}


@pytest.mark.parametrize(
    ("what", "said"),
    [
        ("random", "not JSON"),
        ("no-hub", "hub"),
        ("no-token", "token"),
        ("token-space", "token"),
        ("port", "port"),
        ("plain-http", "https://"),
        ("url-path", "nothing more"),
        ("host-space", "host"),
        ("no-url", "url"),
        ("old-bundle", "earlier release"),
        ("ca-garbage", "certificate"),
        ("ca-missing", "tls_ca"),
        ("ca-not-a-ca", "not a CA"),
    ],
)
def test_install_table_refuses_a_bundle_that_is_not_one(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    hub_bundle: dict[str, object],
    what: str,
    said: str,
) -> None:
    server_pem = None
    if what == "ca-not-a-ca":
        from mesa.hub.broker.tls import ensure_venue_tls

        server_pem = ensure_venue_tls(tmp_path / "tls", hosts=["x.local"]).cert.read_text()
    data: object = {
        "random": os.urandom(600),
        "no-hub": {"table": 3},
        "no-token": with_hub(hub_bundle, token=None),
        "token-space": with_hub(hub_bundle, token="a b"),
        "port": with_hub(hub_bundle, url="https://mesa-hub.local:70000"),
        "plain-http": with_hub(hub_bundle, url="http://mesa-hub.local:8080"),
        "url-path": with_hub(hub_bundle, url="https://evil.example/x"),
        "host-space": with_hub(hub_bundle, url="https://mesa hub:8080"),
        "no-url": with_hub(hub_bundle, url=None),
        "old-bundle": {"hub": {"host": "h.local", "port": 8884, "username": "mesa-enrol",
                               "password": "p", "tls_ca": hub_bundle["hub"]["tls_ca"]}},  # type: ignore[index]
        "ca-garbage": with_hub(hub_bundle, tls_ca="-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
        "ca-missing": with_hub(hub_bundle, tls_ca=None),
        "ca-not-a-ca": with_hub(hub_bundle, tls_ca=server_pem),
    }[what]
    root = tmp_path / "pi"
    root.mkdir()
    args = ["install", "table", "--no-start", "--root", str(root), "--bundle"]
    err = refused(capsys, [*args, str(bundle_file(tmp_path, data))], root)
    assert said in err and "bundle" in err
    assert not (root / "etc").exists()  # refused before anything is installed


def test_install_table_takes_the_hubs_bundle(
    tmp_path: Path, hub_bundle: dict[str, object]
) -> None:
    root = tmp_path / "pi"
    path = bundle_file(tmp_path, hub_bundle)
    assert main(["install", "table", "--no-start", "--root", str(root), "--bundle", str(path)]) == 0
    assert (root / "etc/mesa/enrol.json").read_bytes() == path.read_bytes()
    assert stat.S_IMODE((root / "etc/mesa/enrol.json").stat().st_mode) == 0o600
