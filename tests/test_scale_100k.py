"""The 100,000-GPU example loads and resolves to the fabric its comments describe. Benchmark-only: minutes of CPU,
so it runs only with NETAUTO_BENCHMARK=1 (CI's benchmark job; `benchmarks/bench_100k.py` renders and validates it)."""

from __future__ import annotations

import os

import pytest
from conftest import BENCHMARK_ONLY, EXAMPLES, shipped_inventories

from netauto import pipeline

INVENTORY = EXAMPLES / "100k-3tier" / "inventory"

pytestmark = [
    pytest.mark.benchmark,
    pytest.mark.skipif(not os.environ.get("NETAUTO_BENCHMARK"), reason="benchmark-only (set NETAUTO_BENCHMARK=1)"),
]


def test_100k_is_not_in_the_default_run():
    assert "100k-3tier" in BENCHMARK_ONLY
    assert INVENTORY not in shipped_inventories()


def test_100k_resolves_to_100000_gpus_with_networks():
    cluster = pipeline.resolve_cluster_model(pipeline.load(INVENTORY))
    fabric = cluster.compute
    roles = [sw.role for sw in fabric.switches]
    assert (roles.count("leaf"), roles.count("spine"), roles.count("super_spine")) == (2000, 2500, 1000)
    assert len(fabric.servers) == 12_500
    assert sum(len(s.rails) for s in fabric.servers) == 100_000
    assert {p.name for p in cluster.networks} == {"storage", "frontend"}
