"""`netauto drain <leaf>` (issue 21): an unchanged ECMP map gets a line saying why, so it does not read as
"nothing happened"; a spine's drain, whose map changes, gets none."""

from __future__ import annotations

from netauto.cli.verify import unchanged_width_note


def test_leaf_drain_with_unchanged_widths_is_explained():
    same = {"spine1": 2, "spine2": 2, "spine3": 2, "spine4": 2}  # 2 links per spine
    note = unchanged_width_note("su1-r0-leaf", "leaf", same, dict(same), undrain=False)
    assert note is not None
    assert "reachable only through it" in note and "local-preference 0" in note and "undrain su1-r0-leaf" in note


def test_spine_drain_and_undrain_need_no_note():
    assert unchanged_width_note("spine1", "spine", {"su1-r0-leaf": 8}, {"su1-r0-leaf": 6}, undrain=False) is None
    assert unchanged_width_note("su1-r0-leaf", "leaf", {"spine1": 1}, {"spine1": 1}, undrain=True) is None
