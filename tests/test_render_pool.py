"""The process pool renders a fabric to exactly the serial render's files, in the same order, and a template
failing inside a worker is the same one-line error as in a serial render."""

from __future__ import annotations

import jinja2
import pytest
from conftest import DEFAULT_INVENTORY

from netauto.errors import NetautoError
from netauto.pipeline import build_cluster
from netauto.render import engine, jinja_env, pool


@pytest.fixture(scope="module")
def cluster():
    return build_cluster(DEFAULT_INVENTORY)


def _pooled(monkeypatch: pytest.MonkeyPatch) -> None:
    if pool.workers() < 2:
        monkeypatch.setattr(pool, "workers", lambda: 2)  # fork works on one core too, just slower
    monkeypatch.setattr(pool, "MIN_DEVICES", 0)
    monkeypatch.setattr(pool, "CHUNK", 3)  # many parts on a small fabric


def test_pool_renders_the_serial_files_in_order(cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    serial = list(engine.render_cluster(cluster))
    calls: list[int] = []
    run = pool.run
    monkeypatch.setattr(pool, "run", lambda parts, n, *rest: calls.append(len(parts)) or run(parts, n, *rest))
    _pooled(monkeypatch)
    pooled = list(engine.render_cluster(cluster))
    assert calls and calls[0] > 3, "the pool was not used"
    assert pooled == serial


def test_small_fabric_stays_serial(cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "run", lambda *a, **k: pytest.fail("a fabric below MIN_DEVICES used the pool"))
    assert len(cluster.all_switches()) + len(cluster.server_names()) < pool.MIN_DEVICES
    assert list(engine.render_cluster(cluster))


def _broken_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    env = jinja_env.environment(None)
    broken = env.overlay(loader=jinja2.ChoiceLoader([jinja2.DictLoader({"host/nccl.conf.j2": "x\n{{ server.nope }}\n"}),
                                                     env.loader]))
    monkeypatch.setattr(engine, "environment", lambda override=None: broken)


def test_template_error_in_a_worker_is_the_serial_one_line_error(cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    _broken_environment(monkeypatch)
    with pytest.raises(NetautoError) as serial:
        list(engine.render_cluster(cluster))
    _pooled(monkeypatch)
    with pytest.raises(NetautoError) as pooled:
        list(engine.render_cluster(cluster))
    assert type(pooled.value) is type(serial.value) and pooled.value.exit_code == serial.value.exit_code == 1
    assert str(pooled.value) == str(serial.value)
    assert "\n" not in str(pooled.value) and "host/nccl.conf.j2" in str(pooled.value) and "nope" in str(pooled.value)
