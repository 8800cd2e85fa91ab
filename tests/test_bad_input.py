"""Every mistake in the inventory: one line naming file, line, key path and fix; exit 2; nothing written.

Each case copies the shipped `inventory/`, applies one small text edit and runs the real CLI
(`netauto render -i INV -o OUT`) in-process through its error boundary (`netauto.cli.main`); a few cases
also run as a subprocess (`python -m netauto`) to prove the installed entry path behaves the same.
OUT always holds a previous render, which must stay byte-identical (same files, bytes, modes, mtimes, inodes).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import DEFAULT_INVENTORY, ROOT

from netauto.cli import main


@dataclass(frozen=True)
class Case:
    file: str  # basename of the inventory file to edit (and that the error must name)
    old: str
    new: str
    marker: str  # the error's line is the first line of the edited file containing this text
    key: str  # the key path the error must name
    says: str  # a piece of the message (what is wrong / what is expected)


CASES: dict[str, Case] = {
    # --- schema: unknown keys, wrong types, missing keys
    "unknown-key": Case("fabric.yaml", "  fec: rs\n", "  fec: rs\n  colour: blue\n", "colour: blue",
                        "fabric.colour", "unknown key 'colour'"),
    "unknown-key-typo": Case("addressing.yaml", "    rail_prefix_len: 16", "    rail_prefx_len: 16", "rail_prefx_len",
                             "addressing.host_links.rail_prefx_len", "did you mean 'rail_prefix_len'"),
    "unknown-section": Case("topology.yaml", "\nnaming:", "\nnamin:", "namin:", "namin", "did you mean 'naming'"),
    "wrong-type-int": Case("topology.yaml", "servers_per_su: 8", "servers_per_su: eight", "servers_per_su",
                           "topology.servers_per_su", "expected an integer, got 'eight' (a string)"),
    "wrong-type-bool": Case("addressing.yaml", "vrf: true", "vrf: maybe", "vrf: maybe",
                            "addressing.management.vrf", "expected true or false, got 'maybe'"),
    "wrong-type-list": Case("features.yaml", "drain: []", "drain: spine1", "drain: spine1",
                            "features.gshut.drain", "expected a list"),
    "wrong-type-list-item": Case("topology.yaml", "gpus: [1]}", "gpus: [one]}", "gpus: [one]",
                                 "servers.profiles.dgx-h100.nics[1].gpus[0]", "expected an integer, got 'one' (a string)"),
    "wrong-choice": Case("addressing.yaml", "mode: p2p ", "mode: p3p ", "mode: p3p", "addressing.host_links.mode",
                         "expected one of 'p2p', 'leaf-subnet'; got 'p3p'"),
    "below-minimum": Case("topology.yaml", "spines_per_pod: 4", "spines_per_pod: 0", "spines_per_pod",
                          "topology.spines_per_pod", "must be >= 1, got 0"),
    "missing-key": Case("topology.yaml", "  servers_per_su: 8\n", "", "topology:", "topology.servers_per_su",
                        "required key 'servers_per_su' is missing"),
    # --- YAML itself
    "yaml-syntax": Case("fabric.yaml", "  fec: rs", "  fec: rs: x", "fec: rs: x", "", "YAML syntax error"),
    "yaml-tab": Case("fabric.yaml", "  fec: rs", "\tfec: rs", "fec: rs", "", "indent with spaces"),
    "yaml-unclosed-bracket": Case("topology.yaml", "gpus: [6]}", "gpus: [6]", "{rail: 7,", "",
                                  "while parsing a flow mapping that starts at line"),
    "yaml-duplicate-key": Case("topology.yaml", "  pods: 1\n", "  pods: 1\n  rails: 4\n", "rails: 4",
                               "topology.rails", "duplicate key 'rails' (first defined at line "),
    "empty-section": Case("features.yaml", "overrides:\n  devices: {}\n  ports: []", "overrides:", "overrides:",
                          "overrides", "expected a mapping (key: value lines or {key: value}), got an empty value"),
    "pool-host-bits": Case("addressing.yaml", "pool: 10.0.0.0/12", "pool: 10.0.0.1/12", "pool: 10.0.0.1/12",
                           "addressing.host_links.pool", "host bits zero"),
    "section-in-two-files": Case("topology.yaml", "\nnaming:", "\nqos: {}\n\nnaming:", "qos: {}", "qos",
                                 "section defined twice (already in features.yaml:"),
    # --- fabric-wide checks (resolver)
    "pool-too-small": Case("addressing.yaml", "leaf: 10.254.0.0/20", "leaf: 10.254.0.0/29", "leaf: 10.254.0.0/29",
                           "addressing.loopbacks.leaf", "too small: the fabric needs 8 addresses, it has 6"),
    "host-pool-too-small": Case("addressing.yaml", "pool: 10.0.0.0/12", "pool: 10.0.0.0/14", "pool: 10.0.0.0/14",
                                "addressing.host_links.pool", "holds 4 /16 rail supernets, the fabric has 8 rails"),
    "pools-overlap": Case("addressing.yaml", "spine: 10.253.0.0/22", "spine: 10.254.0.0/22", "spine: 10.254.0.0/22",
                          "addressing.loopbacks.spine", "overlaps addressing.loopbacks.leaf"),
    "duplicate-names": Case("topology.yaml", 'spine: "spine{index}"', 'spine: "spine"', 'spine: "spine"',
                            "naming.spine", "duplicate device name 'spine'"),
    "duplicate-names-across-roles": Case("topology.yaml", 'server: "gpu{index:02d}"', 'server: "spine{index}"',
                                         'server: "spine{index}"', "naming.server",
                                         "duplicate device name 'spine1' (also a spine)"),
    "naming-bad-field": Case("topology.yaml", 'spine: "spine{index}"', 'spine: "spine{idx}"', 'spine: "spine{idx}"',
                             "naming.spine", "cannot format 'spine{idx}'"),
    "rails-vs-nics": Case("topology.yaml", '        - {rail: 7, name: rail7, rdma: mlx5_11, pci: "0000:dc:00.0", gpus: [7]}\n',
                          "", "nics:", "servers.profiles.dgx-h100.nics",
                          "profile 'dgx-h100' has no NIC for rail(s) [7] of the 8-rail fabric"),
    "rails-vs-nics-rails-changed": Case("topology.yaml", "  rails: 8", "  rails: 4", "nics:",
                                        "servers.profiles.dgx-h100.nics",
                                        "rail(s) [4, 5, 6, 7] do not exist: topology.rails is 4"),
    "profile-unknown": Case("topology.yaml", "  profile: dgx-h100", "  profile: dgx-h200", "profile: dgx-h200",
                            "servers.profile", "no profile 'dgx-h200' (profiles: dgx-h100)"),
    "profile-bad-pci": Case("topology.yaml", 'pci: "0000:40:00.0"', 'pci: "40:00.0"', 'pci: "40:00.0"',
                            "servers.profiles.dgx-h100.nics[1].pci", "not a PCI address like 0000:18:00.0"),
    "asn-out-of-range": Case("addressing.yaml", "leaf_base: 65101", "leaf_base: 4294967295", "leaf_base",
                             "asns.leaf_base", "ASN 4294967295 out of range"),
    "asn-23456": Case("addressing.yaml", "super_spine: 65000", "super_spine: 23456", "super_spine: 23456",
                      "asns.super_spine", "ASN 23456 out of range"),
    "asn-range-overflows": Case("addressing.yaml", "leaf_base: 65101", "leaf_base: 4294967290", "leaf_base",
                                "asns.leaf_base", "range 4294967290..4294967297 leaves the valid ASN space"),
    "port-used-twice": Case("topology.yaml", "uplinks: {first: 33}\n  spine", "uplinks: {first: 5}\n  spine",
                            "uplinks: {first: 5}", "ports.leaf.uplinks.first", "a port used twice"),
    "ports-beyond-cages": Case("topology.yaml", "    cages: 64\n    downlinks: {first: 1}\n    uplinks: {first: 33}\n  spine",
                               "    cages: 32\n    downlinks: {first: 1}\n    uplinks: {first: 33}\n  spine",
                               "uplinks: {first: 33}", "ports.leaf.uplinks.first", "but the switch has 32"),
    # --- overrides and drains
    "override-unknown-device": Case("features.yaml", "devices: {}", "devices:\n    gpu99: {absent: true}", "gpu99:",
                                    "overrides.devices.gpu99", "no such device 'gpu99'"),
    "override-unknown-port": Case("features.yaml", "ports: []",
                                  "ports:\n    - device: spine1\n      port: swp1\n    - device: spine1\n      port: swp99",
                                  "port: swp99", "overrides.ports[1].port", "spine1 has no port 'swp99'"),
    "override-port-unknown-switch": Case("features.yaml", "ports: []",
                                         "ports:\n    - device: spine1\n      port: swp1\n    - device: spine9\n"
                                         "      port: swp1", "device: spine9", "overrides.ports[1].device",
                                         "no such switch 'spine9'"),
    "override-unknown-key": Case("features.yaml", "devices: {}", "devices:\n    spine1:\n      drian: true", "drian",
                                 "overrides.devices.spine1.drian", "did you mean 'drain'"),
    "override-port-misspelt-key": Case("features.yaml", "ports: []", "ports:\n    - device: spine1\n      prot: swp1",
                                       "prot: swp1", "overrides.ports[0].prot", "did you mean 'port'"),
    "override-bad-mgmt-ip": Case("features.yaml", "devices: {}", "devices:\n    spine1:\n      mgmt_ip: 300.1.1.1",
                                 "mgmt_ip", "overrides.devices.spine1.mgmt_ip", "300.1.1.1"),
    "ar-with-sonic-switch": Case("features.yaml", "devices: {}", "devices:\n    spine2: {nos: sonic}",
                                 "adaptive_routing:", "features.adaptive_routing",
                                 "adaptive routing is on but SONiC runs on spine2"),
    "drain-unknown-switch": Case("features.yaml", "drain: []", "drain:\n      - spine1\n      - spine9", "- spine9",
                                 "features.gshut.drain[1]", "no such switch 'spine9'"),
    # --- protocol sanity
    "holdtime-below-3x-keepalive": Case("fabric.yaml", "timers: {keepalive: 3, holdtime: 9, connect_retry: 10}",
                                        "timers:\n      keepalive: 3\n      holdtime: 6", "holdtime: 6",
                                        "fabric.bgp.timers.holdtime", "holdtime 6 is below 3 x keepalive 3"),
    "ets-not-100": Case("features.yaml", "ets: {0: 50, 3: 50}", "ets: {0: 50, 3: 40}", "ets:", "qos.ets",
                        "ETS weights sum to 90, they must sum to 100"),
    "ecn-min-not-below-max": Case("features.yaml",
                                  "  ecn: {min_threshold: 150000, max_threshold: 1500000, probability: 100}",
                                  "  ecn:\n    max_threshold: 1500000\n    min_threshold: 1500000",
                                  "min_threshold: 1500000", "qos.ecn.min_threshold",
                                  "min_threshold 1500000 must be below max_threshold 1500000"),
}

SUBPROCESS_CASES = ("yaml-syntax", "override-unknown-port")


# ------------------------------------------------------------------------------------------------ helpers
def snapshot(root: Path) -> dict[str, tuple]:
    """Everything observable about a tree: names, bytes, modes, mtimes, inodes (also of directories)."""
    if not root.exists():
        return {}
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            data = path.read_bytes() if path.is_file() else None
            out[path.relative_to(root).as_posix()] = (data, st.st_mode, st.st_mtime_ns, st.st_ino)
    return out


def run_in_process(args: list[str], capsys, monkeypatch) -> tuple[int, str, str]:
    """Run `netauto ARGS` through the real entry point and error boundary, without a new interpreter."""
    monkeypatch.setattr(sys, "argv", ["netauto", *args])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_subprocess(args: list[str]) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "netauto", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def make_bad_inventory(tmp_path: Path, case: Case) -> tuple[Path, int]:
    inv = tmp_path / "inventory"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    file = inv / case.file
    text = file.read_text()
    assert text.count(case.old) == 1, f"edit anchor {case.old!r} not found once in {case.file}"
    text = text.replace(case.old, case.new)
    file.write_text(text)
    lines = [n for n, line in enumerate(text.splitlines(), 1) if case.marker in line]
    assert lines, f"marker {case.marker!r} not in edited {case.file}"
    return inv, lines[0]


@pytest.fixture(scope="session")
def previous_render(tmp_path_factory) -> Path:
    """A good render of the shipped inventory, made once; each case starts from a copy of it."""
    base = tmp_path_factory.mktemp("previous") / "out"
    from netauto.pipeline import render
    from netauto.render.output import write_tree

    model, artifacts = render(DEFAULT_INVENTORY)
    write_tree(artifacts, base / model.name)
    assert any(base.rglob("frr.conf"))
    return base


@pytest.fixture
def out_dir(tmp_path, previous_render) -> Path:
    out = tmp_path / "out"
    # hard links: cheap, and any in-place write by a failed render would still show up in the snapshot
    shutil.copytree(previous_render, out, copy_function=os.link)
    return out


def assert_one_clear_error(code: int, stdout: str, stderr: str, case: Case, line: int) -> None:
    text = stdout + stderr
    assert code == 2, f"exit {code}, expected 2\n{text}"
    assert "Traceback" not in text, text
    lines = [entry for entry in stderr.splitlines() if entry.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got:\n{stderr}"
    message = lines[0]
    where = f"{case.file}:{line}: "
    assert where in message, f"expected {where!r} (file basename and line) in:\n{message}"
    if case.key:
        assert f"{where}{case.key}: " in message, f"expected key path {case.key!r} right after {where!r}:\n{message}"
    assert case.says in message, f"expected {case.says!r} in:\n{message}"
    assert "(fix: " in message, f"no hint in:\n{message}"


# ------------------------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_in_process(name, tmp_path, out_dir, capsys, monkeypatch):
    case = CASES[name]
    inv, line = make_bad_inventory(tmp_path, case)
    before = snapshot(out_dir)
    code, stdout, stderr = run_in_process(["render", "-i", str(inv), "-o", str(out_dir)], capsys, monkeypatch)
    assert_one_clear_error(code, stdout, stderr, case, line)
    assert snapshot(out_dir) == before, "a failed render changed the previous output"


@pytest.mark.parametrize("name", SUBPROCESS_CASES)
def test_bad_input_subprocess(name, tmp_path, out_dir):
    case = CASES[name]
    inv, line = make_bad_inventory(tmp_path, case)
    before = snapshot(out_dir)
    code, stdout, stderr = run_subprocess(["render", "-i", str(inv), "-o", str(out_dir)])
    assert_one_clear_error(code, stdout, stderr, case, line)
    assert snapshot(out_dir) == before


def test_bad_input_into_fresh_output_creates_nothing(tmp_path, capsys, monkeypatch):
    inv, _ = make_bad_inventory(tmp_path, CASES["pool-too-small"])
    out = tmp_path / "fresh" / "build"
    code, _, stderr = run_in_process(["render", "-i", str(inv), "-o", str(out)], capsys, monkeypatch)
    assert code == 2, stderr
    assert not (tmp_path / "fresh").exists()


@pytest.mark.parametrize("runner", ["in-process", "subprocess"])
def test_inventory_path_missing(runner, tmp_path, capsys, monkeypatch):
    missing = tmp_path / "no-such-inventory"
    out = tmp_path / "out"
    args = ["render", "-i", str(missing), "-o", str(out)]
    if runner == "subprocess":
        code, stdout, stderr = run_subprocess(args)
    else:
        code, stdout, stderr = run_in_process(args, capsys, monkeypatch)
    assert code == 2, stdout + stderr
    assert "Traceback" not in stdout + stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert "no-such-inventory: inventory not found" in stderr
    assert "(fix: " in stderr
    assert not out.exists()


def test_missing_section_names_the_inventory(tmp_path, capsys, monkeypatch):
    inv = tmp_path / "inventory"
    shutil.copytree(DEFAULT_INVENTORY, inv)
    (inv / "fabric.yaml").unlink()
    code, _, stderr = run_in_process(["render", "-i", str(inv), "-o", str(tmp_path / "out")], capsys, monkeypatch)
    assert code == 2
    assert f"{inv}: fabric: required section 'fabric' is missing (fix: " in stderr
