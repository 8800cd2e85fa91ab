"""Template overrides (`--templates`) are bounded: endless, huge, recursive or broken overrides end as one line
naming template and line, exit 2, within the wall-time bound (netauto.render.bounded)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY

from netauto.pipeline import build_cluster, render_files
from netauto.render import bounded
from netauto.render.bounded import TemplateLimitError

CASES = {
    # name: (template text, what the one line must say, line of the template named)
    "endless": ("x\n{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n",
                "still rendering after 2 s", 2),
    "huge-list": ("x\n{{ ([1] * 100000000)|length }}\n", "more than 1,000,000 items", 2),
    "huge-power": ("x\n{{ 2 ** 100000000 }}\n", "is larger than", 2),
    "memory": ('x\n{% for i in range(100000) %}{{ "x" * 999999 }}{% endfor %}\n', "memory bound", 2),
    "recursion": ("x\n{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(1) }}\n", "recursion", 2),
    "syntax": ("x\n{% if %}\n", "Expected an expression", 2),
    "escape": ("x\n{{ ''.__class__.__mro__ }}\n", "unsafe", 2),
}


def _override(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "templates"
    (folder / "host").mkdir(parents=True)
    (folder / "host" / "nccl.conf.j2").write_text(text)
    return folder


@pytest.fixture(scope="module")
def cluster():
    return build_cluster(DEFAULT_INVENTORY)


@pytest.mark.parametrize("case", sorted(CASES))
def test_override_failure_is_one_line_with_template_and_line(case: str, tmp_path: Path, cluster, monkeypatch) -> None:
    text, says, line = CASES[case]
    timeout = 20 if case == "memory" else 2  # the memory case must reach the memory bound first
    monkeypatch.setenv(bounded.TIMEOUT_ENV, str(timeout))
    monkeypatch.setenv(bounded.MEMORY_ENV, "128")
    start = time.monotonic()
    with pytest.raises(TemplateLimitError) as err:
        render_files(cluster, _override(tmp_path, text))
    assert time.monotonic() - start < timeout + bounded.GRACE_S + 5
    message = str(err.value)
    assert "\n" not in message and says in message, message
    assert f"nccl.conf.j2:{line}" in message, message
    assert err.value.exit_code == 2


def test_a_good_override_renders_the_same_files(tmp_path: Path, cluster) -> None:
    """The bounded child returns every artifact: an override identical to the built-in one changes nothing."""
    from netauto.render.fingerprint import builtin_templates

    plain = render_files(cluster)
    same = render_files(cluster, _override(tmp_path, (builtin_templates() / "host" / "nccl.conf.j2").read_text()))
    assert same == plain


def test_default_bound_ends_an_endless_override_within_30_s() -> None:
    """The default wall-time bound plus the parent's grace stays under the issue's 30 s (the `endless` case above
    measures the mechanism at 2 s; the CLI with the default bound took 24.5 s wall on a loaded 2-core machine,
    model resolution and start-up included)."""
    assert bounded.DEFAULT_TIMEOUT_S + bounded.GRACE_S < 30


def test_cli_exit_2_one_line(tmp_path: Path) -> None:
    folder = _override(tmp_path, CASES["huge-list"][0])
    run = subprocess.run([sys.executable, "-m", "netauto", "render", "-i", str(DEFAULT_INVENTORY),
                          "-o", str(tmp_path / "out"), "--templates", str(folder)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "nccl.conf.j2:2" in run.stderr
    assert not (tmp_path / "out").exists()


def test_limits_from_the_environment_are_checked(tmp_path: Path, cluster, monkeypatch) -> None:
    monkeypatch.setenv(bounded.TIMEOUT_ENV, "soon")
    with pytest.raises(TemplateLimitError, match="NETAUTO_TEMPLATE_TIMEOUT='soon' is not a number"):
        render_files(cluster, _override(tmp_path, "x\n"))
