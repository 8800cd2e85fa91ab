"""The command line: cabling plan, model dump, diff against goldens, golden update, --help everywhere."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml
from conftest import DEFAULT_INVENTORY, EXAMPLES, GOLDEN, ROOT

from netauto.cli import main
from netauto.cli.app import cli, load_commands

TWO_SU = EXAMPLES / "2su-leaf-subnet" / "inventory"
FABRICS = {"gpu-pod1": DEFAULT_INVENTORY, "gpu-2su": TWO_SU}


def run(args: list[str], capsys, monkeypatch) -> tuple[int, str, str]:
    """`netauto ARGS` in-process through the real entry point (error boundary included)."""
    monkeypatch.setattr(sys, "argv", ["netauto", *map(str, args)])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out, captured.err


def raw_inventory(root: Path) -> dict:
    data: dict = {}
    for file in sorted(root.glob("*.y*ml")):
        data.update(yaml.safe_load(file.read_text()) or {})
    return data


def expected_link_counts(root: Path) -> dict[str, int]:
    """Links per kind, from the inventory numbers alone (schema defaults where a key is left out)."""
    inv = raw_inventory(root)
    t = inv["topology"]
    rails, pods, sus_per_pod = t.get("rails", 8), t.get("pods", 1), t.get("sus_per_pod", 1)
    spines_per_pod = t["spines_per_pod"]
    sus = pods * sus_per_pod
    leaves = sus * rails
    absent = sum(1 for o in (inv.get("overrides", {}).get("devices") or {}).values() if (o or {}).get("absent"))
    counts = {
        "leaf-spine": leaves * spines_per_pod * t.get("leaf_spine_links", 1),
        "server-leaf": (sus * t["servers_per_su"] - absent) * rails,
    }
    if t.get("super_spines_per_group", 0):
        counts["spine-superspine"] = (pods * spines_per_pod * t["super_spines_per_group"]
                                      * t.get("spine_super_spine_links", 1))
    return counts


# ------------------------------------------------------------------------------------------------ show cabling
@pytest.mark.parametrize("fabric", list(FABRICS))
def test_show_cabling_csv_one_row_per_link(fabric, capsys, monkeypatch):
    inventory = FABRICS[fabric]
    code, stdout, _ = run(["show", "cabling", "-i", inventory, "--format", "csv"], capsys, monkeypatch)
    assert code == 0
    rows = list(csv.reader(io.StringIO(stdout)))
    header, body = rows[0], rows[1:]
    assert header[:5] == ["a_device", "a_port", "b_device", "b_port", "speed"]
    counts = expected_link_counts(inventory)
    assert len(body) == sum(counts.values()), counts
    assert all(len(row) == len(header) for row in body)
    if "kind" in header:
        kinds = [row[header.index("kind")] for row in body]
        assert {k: kinds.count(k) for k in counts} == counts
    ends = [(r[0], r[1]) for r in body] + [(r[2], r[3]) for r in body]
    assert len(ends) == len(set(ends)), "a port appears on two links"


def test_show_cabling_table(capsys, monkeypatch):
    code, stdout, _ = run(["show", "cabling", "-i", DEFAULT_INVENTORY, "--format", "table"], capsys, monkeypatch)
    assert code == 0
    assert "gpu-pod1" in stdout and "a_device" in stdout


# ------------------------------------------------------------------------------------------------ show model
def test_show_model_json_parses(capsys, monkeypatch):
    code, stdout, _ = run(["show", "model", "-i", DEFAULT_INVENTORY, "--format", "json"], capsys, monkeypatch)
    assert code == 0
    data = json.loads(stdout)
    assert data["name"] == "gpu-pod1"
    names = {d["name"] for d in data["switches"]} | {d["name"] for d in data["servers"]}
    assert {"spine1", "su1-r0-leaf", "gpu01"} <= names


def test_show_model_yaml_parses(capsys, monkeypatch):
    code, stdout, _ = run(["show", "model", "-i", DEFAULT_INVENTORY], capsys, monkeypatch)
    assert code == 0
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    assert yaml.load(stdout, Loader=loader)["name"] == "gpu-pod1"


@pytest.mark.parametrize("device", ["spine1", "su1-r3-leaf", "gpu05"])
def test_show_model_device_filter(device, capsys, monkeypatch):
    code, stdout, _ = run(["show", "model", "-i", DEFAULT_INVENTORY, "--format", "json", "--device", device],
                          capsys, monkeypatch)
    assert code == 0
    data = json.loads(stdout)
    assert data["name"] == device
    assert "switches" not in data


def test_show_model_unknown_device(capsys, monkeypatch):
    code, stdout, stderr = run(["show", "model", "-i", DEFAULT_INVENTORY, "--device", "spine99"], capsys, monkeypatch)
    assert code != 0
    assert stdout == ""
    assert "spine99" in stderr and "gpu-pod1" in stderr
    assert len(stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------------------------------------ diff / golden
@pytest.mark.parametrize("fabric", list(FABRICS))
def test_diff_clean_on_shipped_goldens(fabric, capsys, monkeypatch):
    code, stdout, _ = run(["diff", "-i", FABRICS[fabric], "--golden", GOLDEN], capsys, monkeypatch)
    assert code == 0, stdout
    assert "up to date" in stdout


def test_diff_change_then_golden_update(tmp_path, capsys, monkeypatch):
    inv = tmp_path / "inventory"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    golden = tmp_path / "golden"
    shutil.copytree(GOLDEN / "gpu-pod1", golden / "gpu-pod1")
    shipped = {p: p.read_bytes() for p in (GOLDEN / "gpu-pod1").rglob("*") if p.is_file()}

    features = inv / "features.yaml"
    text = features.read_text()
    assert text.count("ar_link_util_threshold: 70") == 1
    features.write_text(text.replace("ar_link_util_threshold: 70", "ar_link_util_threshold: 75"))

    code, stdout, _ = run(["diff", "-i", inv, "--golden", golden], capsys, monkeypatch)
    assert code == 1, stdout
    assert "--- a/" in stdout and "+++ b/" in stdout and "@@ " in stdout
    changed = [line for line in stdout.splitlines() if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]
    assert any("75" in line for line in changed if line.startswith("+")), stdout
    assert any("70" in line for line in changed if line.startswith("-")), stdout
    assert "golden update" in stdout

    code, stdout, _ = run(["golden", "update", "-i", inv, "--golden", golden], capsys, monkeypatch)
    assert code == 0, stdout
    code, stdout, _ = run(["diff", "-i", inv, "--golden", golden], capsys, monkeypatch)
    assert code == 0, stdout
    # the shipped goldens were never touched
    assert {p: p.read_bytes() for p in (GOLDEN / "gpu-pod1").rglob("*") if p.is_file()} == shipped


def test_diff_reports_new_and_removed_files(tmp_path, capsys, monkeypatch):
    golden = tmp_path / "golden"
    shutil.copytree(GOLDEN / "gpu-pod1", golden / "gpu-pod1")
    (golden / "gpu-pod1" / "gpu01" / "etc" / "nccl.conf").unlink()
    (golden / "gpu-pod1" / "gpu01" / "stale.conf").write_text("old\n")
    code, stdout, _ = run(["diff", "-i", DEFAULT_INVENTORY, "--golden", golden], capsys, monkeypatch)
    assert code == 1
    assert "gpu01/etc/nccl.conf" in stdout and "gpu01/stale.conf" in stdout


def test_bad_inventory_in_diff_is_exit_2(tmp_path, capsys, monkeypatch):
    inv = tmp_path / "inventory"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    (inv / "topology.yaml").write_text((inv / "topology.yaml").read_text().replace("rails: 8", "rails: 0"))
    code, _, stderr = run(["diff", "-i", inv, "--golden", GOLDEN], capsys, monkeypatch)
    assert code == 2
    assert "topology.yaml:3: topology.rails: must be >= 1, got 0" in stderr


# ------------------------------------------------------------------------------------------------ --help
def _command_paths() -> list[tuple[str, ...]]:
    load_commands()
    paths: list[tuple[str, ...]] = [()]

    def walk(group: click.Group, prefix: tuple[str, ...]) -> None:
        for name, command in sorted(group.commands.items()):
            paths.append(prefix + (name,))
            if isinstance(command, click.Group):
                walk(command, prefix + (name,))

    walk(cli, ())
    return paths


@pytest.mark.parametrize("path", _command_paths(), ids=lambda p: " ".join(p) or "netauto")
def test_help_for_every_command(path, capsys, monkeypatch):
    code, stdout, stderr = run([*path, "--help"], capsys, monkeypatch)
    assert code == 0, stderr
    assert "Usage:" in stdout
    assert stderr == ""


def test_core_commands_are_registered():
    paths = set(_command_paths())
    assert {("render",), ("diff",), ("golden", "update"), ("show", "model"), ("show", "cabling")} <= paths


def documented_commands(text: str) -> set[tuple[str, ...]]:
    """The command paths the Commands table of docs/cli.md names: `netauto a\\|b c\\|d [...]` is a, b, a c, a d,
    b c, b d (a second word that is an option, a placeholder or `[` is not a subcommand)."""
    listed: set[tuple[str, ...]] = set()
    for cell in re.findall(r"^\| `netauto ([^`]*)`", text, re.M):
        words = cell.split()
        firsts = words[0].split("\\|")
        seconds = words[1].split("\\|") if len(words) > 1 and re.fullmatch(r"[a-z0-9\\|-]+", words[1]) else []
        listed |= {(f,) for f in firsts} | {(f, n) for f in firsts for n in seconds}
    return listed


def test_the_command_reference_lists_every_command():
    """docs/index.md: "The Command reference lists every command" (a newcomer found acceptance, export
    slurm-topology/k8s-topology, deploy status/clear and lab alerts missing)."""
    listed = documented_commands((ROOT / "docs" / "cli.md").read_text(encoding="utf-8"))
    missing = [" ".join(p) for p in _command_paths() if p and p not in listed]
    assert not missing, f"docs/cli.md's Commands table lacks: {missing}"


GROUP_FLAGS = ("-v", "-vv", "-vvv", "--debug", "--allow-huge")


def _options_shown(line: str) -> list[tuple[tuple[str, ...], str]]:
    """(command path, option) for each `--opt` / `-x` written after `netauto <command>` on a docs line, up to a
    backtick, pipe, `;`, `&&` or a `--` that ends netauto's own options (`lab exec ... -- sed -i`)."""
    shown: list[tuple[tuple[str, ...], str]] = []
    for seg in re.findall(r"netauto ([^`|;&\n]*)", line):
        words = [w for w in seg.split() if w not in GROUP_FLAGS]
        command: click.Command = cli
        path: list[str] = []
        while words and isinstance(command, click.Group) and words[0] in command.commands:
            command = command.commands[words.pop(0)]
            path.append(command.name or "")
        if not path:
            continue
        for word in words:
            if word == "--":
                break
            for part in word.strip("[](),.:'\"").split("\\|"):
                if part.startswith("--") or re.fullmatch(r"-[a-zA-Z]", part):
                    shown.append((tuple(path), part.split("=")[0]))
    return shown


def test_every_option_the_docs_show_exists():
    """Each option README.md and docs/*.md write after `netauto <command>` is one that command takes (its
    --help is the truth a newcomer checks the docs against)."""
    load_commands()
    wrong = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for path, option in _options_shown(line):
                command: click.Command = cli
                for name in path:
                    command = command.commands[name]  # type: ignore[attr-defined]
                known = {o for p in command.params for o in [*p.opts, *p.secondary_opts]} | {"--help", "-h"}
                if option not in known:
                    wrong.append(f"{doc.relative_to(ROOT)}:{number}: netauto {' '.join(path)} {option}")
    assert not wrong, wrong


def test_python_dash_m_and_entry_point_help():
    proc = subprocess.run([sys.executable, "-m", "netauto", "--help"], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Usage:" in proc.stdout and "render" in proc.stdout
    exe = shutil.which("netauto")
    if exe:
        proc = subprocess.run([exe, "show", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert "cabling" in proc.stdout
