"""One composition of a device's files: `netauto.render.device.device_files` (issue #35 item 1). The whole-tree
render (serial and pooled), the incremental render and the drain fast path all call it over the one table of
networks (`render.device.networks`); no other module of src/netauto chooses which files a device gets or renders
a device spec itself (checked on the imports and calls, not on two names). And the function is pure: the same
device and network give the same files, whatever was rendered before, and nothing it reads is changed."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest
from conftest import EXAMPLES

import netauto
from netauto.pipeline import build_cluster
from netauto.render import engine, jinja_env
from netauto.render.device import OobNetwork, device_files, device_groups, device_name, networks

SRC = Path(netauto.__file__).resolve().parent
DEVICE = "render/device.py"
# what decides a device's files: which specs (file_tables), the OOB switches' NVUE document, rendering one spec
DISPATCH = {"HOST", "network_host_specs", "OOB_INTERFACES", "OOB_ROUTES", "BMC", "oob_startup_yaml", "_render",
            "_switch_artifacts", "PLATFORMS"}
# deploy/host_nic.py asserts at import that its provisioning paths are among the compute files: it renders nothing
ALLOWED = {("deploy/host_nic.py", "HOST")}


def _names(tree: ast.AST) -> set[str]:
    """The names a module imports or reads as an attribute (`file_tables.HOST`, `engine._render`)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
    return found


def _calls(tree: ast.AST, function: str) -> set[str]:
    """The names `function` (a top-level def of the module) calls."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return {n.func.id if isinstance(n.func, ast.Name) else n.func.attr for n in ast.walk(node)
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)}
    raise AssertionError(f"no function {function}")


def _module(rel: str) -> ast.Module:
    return ast.parse((SRC / rel).read_text())


def test_only_render_device_chooses_a_devices_files() -> None:
    users: dict[str, set[str]] = {}
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel in (DEVICE, "render/file_tables.py", "render/nvue.py", "platforms/host.py"):  # the definitions
            continue
        used = {name for name in _names(ast.parse(path.read_text())) & DISPATCH if (rel, name) not in ALLOWED}
        if used:
            users[rel] = used
    assert users == {}, "a device's files chosen or rendered outside render/device.py"


@pytest.mark.parametrize(("module", "function"), [
    ("render/engine.py", "_devices"),  # every part of the whole-tree render, serial or in the pool's workers
    ("render/incremental.py", "_devices"),  # the changed devices of an incremental render
    ("render/incremental.py", "render_switches"),  # the drain fast path (render/local_edit.py)
])
def test_every_render_path_calls_device_files(module: str, function: str) -> None:
    assert "device_files" in _calls(_module(module), function)
    imported = {node.module for node in ast.walk(_module(module)) if isinstance(node, ast.ImportFrom)}
    assert "netauto.render.device" in imported


def test_the_drain_fast_path_renders_through_render_switches() -> None:
    assert "render_switches" in _calls(_module("render/local_edit.py"), "rerender_edit")
    assert not _names(_module("render/local_edit.py")) & DISPATCH


@pytest.fixture(scope="module", params=["cluster-64", "b300-2plane"])
def cluster(request: pytest.FixtureRequest):
    return build_cluster(EXAMPLES / request.param / "inventory")


def _every_device(cluster):
    return [(network, device) for network in networks(cluster) for group in device_groups(network)
            for device in group]


def test_the_table_covers_every_network_and_device_once(cluster) -> None:
    rows = networks(cluster)
    planes = [f"compute-p{p}" for p in range(2, 2 + len(cluster.compute_planes))]
    assert [row.label for row in rows] == ["compute", *planes, *(f"network:{n.name}" for n in cluster.networks),
                                           *(["oob"] if cluster.oob else [])]
    assert [row.fabric for row in rows if not isinstance(row, OobNetwork)] == [fab for _, fab in cluster.fabrics()]
    assert any(isinstance(row, OobNetwork) for row in rows) == (cluster.oob is not None)
    devices = {device_name(d) for _, d in _every_device(cluster)}
    assert {sw.name for sw in cluster.all_switches()} | set(cluster.server_names()) <= devices


def test_device_files_is_the_whole_tree_render(cluster) -> None:
    """The rows of the table, device by device, are exactly the per-device files of `render_cluster`."""
    env = jinja_env.environment(None)
    per_device = [art for network, device in _every_device(cluster) for art in device_files(env, network, device)]
    names = {device_name(d) for _, d in _every_device(cluster)}
    whole = [art for art in engine.render_cluster(cluster) if art.device in names]
    assert per_device == whole


def test_device_files_is_pure(cluster) -> None:
    """Same inputs, same files: each device rendered again in reverse order (after every other device) gives
    what it gave first, and rendering changes neither the device nor its network."""
    env = jinja_env.environment(None)
    pairs = _every_device(cluster)
    before = pickle.dumps(cluster, protocol=5)
    first = {id(device): list(device_files(env, network, device)) for network, device in pairs}
    assert pickle.dumps(cluster, protocol=5) == before
    for network, device in reversed(pairs):
        assert list(device_files(env, network, device)) == first[id(device)], device_name(device)
    network, device = pairs[0]
    assert list(device_files(env, networks(cluster)[0], device)) == first[id(device)]


def test_a_device_of_another_network_kind_is_refused(cluster) -> None:
    env = jinja_env.environment(None)
    with pytest.raises(TypeError, match=r"^Switch .* is no device of network oob$"):
        list(device_files(env, OobNetwork(cluster), cluster.compute.switches[0]))
    if cluster.oob:
        with pytest.raises(TypeError, match="is no device of network compute"):
            list(device_files(env, networks(cluster)[0], cluster.oob.bmcs[0]))


def test_the_ansible_export_lists_every_file_the_render_writes(cluster, tmp_path) -> None:
    """`netauto_files` (src/dest/mode of every artifact of that device) is what render wrote into the device's
    folder, no more, no less: the export asks render/device which files a device gets (the OOB switches' Linux
    files and the servers' BMC address script were missing: it chose the files itself)."""
    from netauto.export.ansible import ansible_inventory
    from netauto.pipeline import render_files

    hostvars: dict[str, dict] = {}

    def walk(node: dict) -> None:
        for key, value in node.items():
            if key == "hosts":
                hostvars.update({h: v for h, v in value.items() if isinstance(v, dict)})
            elif isinstance(value, dict):
                walk(value)

    walk(ansible_inventory(cluster, source=tmp_path, render_out=tmp_path))
    listed = {(host, f["path"], f["mode"]) for host, v in hostvars.items() for f in v["netauto_files"]}
    rendered = {(a.device, a.path, f"{a.mode:04o}") for a in render_files(cluster) if a.device in hostvars}
    assert listed == rendered
