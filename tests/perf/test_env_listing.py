"""ENV001's folder listing is reused while the folder is unchanged, and never hides a lockfile added later."""

from __future__ import annotations

import os
import time

from jupyter_trainguard.rules.environment import _LISTED, pinned_in


def test_listing_reused_then_refreshed_when_a_lockfile_appears(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    old = time.time() - 60
    os.utime(tmp_path, (old, old))  # a folder that has not changed for a minute: its listing may be kept
    assert pinned_in(tmp_path) is None
    assert str(tmp_path) in _LISTED
    (tmp_path / "requirements.txt").write_text("numpy==2.1.0\n")  # moves the folder's mtime on
    assert pinned_in(tmp_path) == "requirements.txt"


def test_edited_requirements_are_read_again(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("numpy\n")
    old = time.time() - 60
    os.utime(tmp_path, (old, old))
    assert pinned_in(tmp_path) is None
    req.write_text("numpy==2.1.0\n")  # same folder listing, newer file
    os.utime(req, (time.time() + 5, time.time() + 5))
    assert pinned_in(tmp_path) == "requirements.txt"


def test_a_folder_listed_within_its_own_clock_tick_is_not_kept(tmp_path):
    (tmp_path / "notes.txt").write_text("x")  # the folder changed just now
    assert pinned_in(tmp_path) is None
    assert str(tmp_path) not in _LISTED
