"""Paths walked without following links: links refused, planted temporary names ignored, modes
set on open files, a named pipe read without blocking."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mesa.hub.safe_files import SafeTree, UnsafePath, open_folder, read_regular, real_root


def test_a_link_on_the_way_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "root", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "etc").mkdir(parents=True)
    (root / "etc/mesa").symlink_to(elsewhere)
    with SafeTree(root) as tree:
        with pytest.raises(UnsafePath, match=r"etc/mesa is a symbolic link \(to .*elsewhere\)"):
            tree.check("etc/mesa/x.conf")
        with pytest.raises(UnsafePath, match="etc/mesa is a symbolic link"):
            tree.write("etc/mesa/x.conf", b"x", 0o644)
        with pytest.raises(UnsafePath, match="etc/mesa is a symbolic link"):
            tree.chown("etc/mesa/x.conf", "root", "root")
    assert list(elsewhere.iterdir()) == []


def test_a_planted_temporary_name_is_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (tmp_path / "root").mkdir()
    for planted in ("x.conf.tmp", ".x.conf.tmp"):
        (tmp_path / "root" / planted).symlink_to(victim)
    with SafeTree(tmp_path / "root") as tree:
        assert tree.write("x.conf", b"new", 0o600)
    assert victim.read_text() == "keep me"
    assert (tmp_path / "root/x.conf").read_bytes() == b"new"
    assert stat.S_IMODE((tmp_path / "root/x.conf").stat().st_mode) == 0o600
    # Nothing of ours is left behind (the temporary file was renamed).
    assert sorted(p.name for p in (tmp_path / "root").iterdir()) == [
        ".x.conf.tmp", "x.conf", "x.conf.tmp"]


def test_modes_are_set_on_the_folder_not_through_a_link(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir(mode=0o700)
    os.chmod(target, 0o700)
    (tmp_path / "root/var/lib").mkdir(parents=True)
    (tmp_path / "root/var/lib/mesa").symlink_to(target)
    with SafeTree(tmp_path / "root") as tree:
        with pytest.raises(UnsafePath), tree.folder("var/lib/mesa", 0o755):
            pass
        with tree.folder("var/lib/other", 0o750):
            pass
    assert stat.S_IMODE(target.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "root/var/lib/other").stat().st_mode) == 0o750


def test_a_named_pipe_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(UnsafePath, match="named pipe"):
        read_regular(fifo, limit=100)


def test_a_root_through_a_link_and_a_linked_folder_are_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to(tmp_path / "real")
    with pytest.raises(UnsafePath, match="passes through a symbolic link"):
        real_root(tmp_path / "via" / "root")
    with pytest.raises(UnsafePath, match="via is a symbolic link"):
        open_folder(tmp_path / "via")
    assert real_root(tmp_path / "real") == tmp_path / "real"


def test_our_own_links_are_replaced_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    wants = tmp_path / "root/etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True)
    (wants / "mesa-hub.service").symlink_to(victim)
    with SafeTree(tmp_path / "root") as tree:
        rel = "etc/systemd/system/multi-user.target.wants/mesa-hub.service"
        assert tree.link(rel, "/etc/systemd/system/mesa-hub.service")
        assert not tree.link(rel, "/etc/systemd/system/mesa-hub.service")
        assert tree.unlink(rel) and not tree.unlink(rel)
    assert victim.read_text() == "keep me"
