"""platforms/datafile.py owns the one cache of the platform layer's data files: every accessor module (linkx,
racking, nics, optics, nos) reads each data/*.yaml once per process, through load_cached, and racking's longest
cable class reads the optics table optics.py reads (not a second copy of optics.yaml's path)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from netauto.platforms import datafile, linkx, nics, nos, optics, racking


def test_each_data_file_is_read_once_for_all_its_readers(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: Counter[str] = Counter()
    real = datafile.load_yaml

    def counting(path: Path) -> Any:
        reads[path.name] += 1
        return real(path)

    monkeypatch.setattr(datafile, "load_yaml", counting)
    datafile.load_cached.cache_clear()
    try:
        for _ in range(2):
            assert linkx.forms() and linkx.media()
            assert racking.server_models() and racking.switch_models()
            assert racking.longest_cable_m() == max(optics.optics()["length_classes"])
            assert nics.kinds()
            assert nos.cumulus_releases() and nos.sonic_flex_counters()
    finally:
        datafile.load_cached.cache_clear()
    assert reads == {"linkx.yaml": 1, "racking.yaml": 1, "optics.yaml": 1, "nics.yaml": 1,
                     "nos_cumulus.yaml": 1, "nos_sonic.yaml": 1}, reads


def test_the_modules_read_their_files_only_through_the_cache() -> None:
    for module in (linkx, racking, nics, nos, optics):
        source = Path(module.__file__ or "").read_text()
        assert "load_yaml(" not in source, module.__name__
