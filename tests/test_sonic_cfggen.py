"""netauto's SONiC config_db measured against SONiC's own generator (sonic-cfggen rendering the SKU's buffers.json.j2
and qos.json.j2, as `config qos reload` does), for every SONiC switch of every shipped inventory and of two test
fabrics (every switch on SONiC; SONiC leaves with 2x400G breakouts).

Checked: both templates render for the switch's DEVICE_METADATA (type -> buffers_defaults_<t>.j2), and netauto's
tables agree with SONiC's on the WRED colour enables, the per-port profile lists, the profiles they name and the
pool sizes. Not checked here: what swss/orchagent/SAI program from those tables (no SONiC switch; docs/sonic.md).

The kit is found as the YANG models are (netauto.validate.sonic_cfggen.find_kit): a skip without it, a failure
under CI (`.ci/run` runs scripts/get-sonic-cfggen --if-missing first).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, shipped_inventories

from netauto.inventory.loader import load_inventory
from netauto.inventory.schema import NosPlan
from netauto.model.resolve import resolve
from netauto.model.types import FabricModel
from netauto.pipeline import build_model
from netauto.render.engine import render_fabric
from netauto.sonic.config_db import buffer_tables, build_config_db, qos_tables
from netauto.validate import sonic_cfggen

COLOURS = ("green", "yellow", "red")
PROFILE_LISTS = ("BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST")


@pytest.fixture(scope="module")
def kit() -> Path:
    lookup = sonic_cfggen.find_kit(dev=True)
    if lookup.found is None:
        message = (f"sonic-cfggen kit not found (looked in: {lookup.describe()}); "
                   f"run scripts/get-sonic-cfggen or set {sonic_cfggen.DIR_ENV}")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return lookup.found


def _all_sonic(inventory: Path, *, leaves_only: bool = False) -> FabricModel:
    """The fabric with every switch (or every leaf) on SONiC; per-device NOS and port overrides dropped."""
    loaded = load_inventory(inventory)
    inv = loaded.inventory
    devices = {k: v.model_copy(update={"nos": None}) for k, v in inv.overrides.devices.items()}
    plan = NosPlan(default="cumulus", leaf="sonic") if leaves_only else NosPlan(default="sonic")
    inv = inv.model_copy(update={
        "fabric": inv.fabric.model_copy(update={"nos": plan}),
        "features": inv.features.model_copy(update={"adaptive_routing": False}),
        "overrides": inv.overrides.model_copy(update={"devices": devices, "ports": []}),
    })
    return resolve(dataclasses.replace(loaded, inventory=inv))


def _sonic_dbs() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for inventory in shipped_inventories():
        # a SONiC switch needs `sonic` somewhere in its inventory (fabric.nos or an override): skip resolving the rest
        if not any("sonic" in f.read_text() for f in inventory.glob("*.yaml")):
            continue
        model = build_model(inventory)
        label = inventory.parent.name if inventory.parent != EXAMPLES.parent else "inventory"
        out += [(f"{label}/{sw.name}", build_config_db(sw, model)) for sw in model.switches if sw.nos == "sonic"]
    for label, model in (("mixed-all-sonic", _all_sonic(EXAMPLES / "mixed-sonic" / "inventory")),
                         ("2su-sonic-leaves", _all_sonic(EXAMPLES / "2su-leaf-subnet" / "inventory", leaves_only=True))):
        out += [(f"{label}/{sw.name}", build_config_db(sw, model)) for sw in model.switches if sw.nos == "sonic"]
    return out


@pytest.fixture(scope="module")
def sonic_dbs() -> list[tuple[str, dict[str, Any]]]:
    return _sonic_dbs()


def _shape(db: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    """What SONiC's generator output depends on for these switches: SKU, type and port names (buffers_config.j2 and
    qos_config.j2 read DEVICE_METADATA, PORT and DEVICE_NEIGHBOR, which netauto does not render)."""
    meta = db["DEVICE_METADATA"]["localhost"]
    return meta["hwsku"], meta["type"], tuple(sorted(db["PORT"]))


def test_the_comparison_covers_spines_leaves_and_breakouts(sonic_dbs):
    types = {db["DEVICE_METADATA"]["localhost"]["type"] for _, db in sonic_dbs}
    assert types == {"ToRRouter", "LeafRouter"}
    assert any(len(db["PORT"]) > 64 or any(p["lanes"].count(",") == 3 and p["speed"] == "400000"
                                           for p in db["PORT"].values()) for _, db in sonic_dbs)
    assert len(sonic_dbs) >= 30


def test_sonic_generator_agrees_with_netauto(kit, sonic_dbs):
    """Every switch against SONiC's output for its shape (rendered once per shape: 3 for the 37 switches)."""
    problems: list[str] = []
    sonic: dict[tuple[str, str, tuple[str, ...]], tuple[dict[str, Any], dict[str, Any]] | str] = {}
    for name, db in sonic_dbs:
        key = _shape(db)
        if key not in sonic:
            try:
                sonic[key] = (sonic_cfggen.render(kit, "buffers", db), sonic_cfggen.render(kit, "qos", db))
            except sonic_cfggen.CfggenError as exc:
                sonic[key] = str(exc)
        rendered = sonic[key]
        if isinstance(rendered, str):
            problems.append(f"{name}: {rendered}")
            continue
        problems += [f"{name}: {p}" for p in compare(db, *rendered)]
    assert not problems, "\n".join(problems[:40])


def compare(db: dict[str, Any], buffers: dict[str, Any], qos: dict[str, Any]) -> list[str]:
    """Where netauto's tables disagree with SONiC's generator on the four semantics the comparison owns."""
    out: list[str] = []
    if "WRED_PROFILE" not in db:  # a lossy network: SONiC's defaults stay
        return out
    sonic_enables = {f"wred_{c}_enable": qos["WRED_PROFILE"]["AZURE_LOSSLESS"][f"wred_{c}_enable"] for c in COLOURS}
    for name, profile in db["WRED_PROFILE"].items():
        mine = {k: profile.get(k) for k in sonic_enables}
        if mine != sonic_enables:
            out.append(f"WRED_PROFILE {name} colour enables {mine}, SONiC's {sonic_enables}")
    for table in PROFILE_LISTS:
        if db.get(table) != buffers.get(table):
            missing = sorted(set(buffers.get(table, {})) - set(db.get(table, {})))
            out.append(f"{table} differs ({len(missing)} port(s) missing: {', '.join(missing[:4])})")
    referenced = {p for table in PROFILE_LISTS for row in buffers.get(table, {}).values()
                  for p in row["profile_list"].split(",")}
    for name in sorted(referenced):
        if db.get("BUFFER_PROFILE", {}).get(name) != buffers["BUFFER_PROFILE"][name]:
            out.append(f"BUFFER_PROFILE {name}: {db.get('BUFFER_PROFILE', {}).get(name)} vs SONiC's "
                       f"{buffers['BUFFER_PROFILE'][name]}")
    if db.get("BUFFER_POOL") != buffers["BUFFER_POOL"]:
        out.append(f"BUFFER_POOL {db.get('BUFFER_POOL')} vs SONiC's {buffers['BUFFER_POOL']}")
    return out


def test_compare_sees_each_difference(kit, sonic_dbs):
    """The comparison is not vacuous: each of the four disagreements it owns is reported."""
    name, db = next((n, d) for n, d in sonic_dbs if "BUFFER_POOL" in d)
    buffers, qos = sonic_cfggen.render(kit, "buffers", db), sonic_cfggen.render(kit, "qos", db)
    assert compare(db, buffers, qos) == [], name
    port = sorted(db["PORT"])[0]
    for mutate, needle in (
        (lambda d: d["WRED_PROFILE"]["ROCE_ECN"].update(wred_green_enable="false"), "colour enables"),
        (lambda d: d["BUFFER_PORT_INGRESS_PROFILE_LIST"].pop(port), "BUFFER_PORT_INGRESS_PROFILE_LIST"),
        (lambda d: d["BUFFER_PROFILE"]["egress_lossy_profile"].update(size="0"), "BUFFER_PROFILE egress_lossy"),
        (lambda d: d["BUFFER_POOL"]["ingress_lossy_pool"].update(size="1"), "BUFFER_POOL"),
    ):
        broken = {k: {kk: dict(vv) if isinstance(vv, dict) else vv for kk, vv in v.items()} for k, v in db.items()}
        mutate(broken)
        assert any(needle in p for p in compare(broken, buffers, qos)), needle


def test_the_type_picks_buffer_defaults_the_generator_has(kit, sonic_dbs):
    """SpineRouter (what spines were) selects buffers_defaults_t2.j2, which the SN5600 SKU lacks: SONiC's
    generator fails, as `config qos reload` does on the switch."""
    name, db = next((n, d) for n, d in sonic_dbs if d["DEVICE_METADATA"]["localhost"]["type"] == "LeafRouter")
    spine = {**db, "DEVICE_METADATA": {"localhost": {**db["DEVICE_METADATA"]["localhost"], "type": "SpineRouter"}}}
    with pytest.raises(sonic_cfggen.CfggenError, match="buffers_defaults_t2.j2"):
        sonic_cfggen.render(kit, "buffers", spine)


def test_sonic_regeneration_from_the_installed_templates_gives_netautos_tables(kit):
    """`config qos reload` renders the SKU folder's qos.json.j2 / buffers.json.j2: the SKU's own maps DSCP 26 to a
    lossy TC; the files netauto installs there render (with SONiC's generator) to exactly netauto's tables."""
    model = build_model(EXAMPLES / "mixed-sonic" / "inventory")
    files = {(a.device, a.path): a.content for a in render_fabric(model)}
    for name in ("su1-r7-leaf", "spine4"):  # a leaf with disabled ports, a spine (the rest differ in names only)
        sw = model.switch(name)
        db = build_config_db(sw, model)
        folder = f"usr/share/sonic/device/{db['DEVICE_METADATA']['localhost']['platform']}/{sw.hwsku}"
        stock = sonic_cfggen.render(kit, "qos", db)
        assert stock["DSCP_TO_TC_MAP"]["AZURE"]["26"] not in db["PORT_QOS_MAP"][sorted(db["PORT"])[0]]["pfc_enable"]
        for what, template in (("qos", "qos.json.j2"), ("buffers", "buffers.json.j2")):
            text = files[sw.name, f"{folder}/{template}"]
            out = sonic_cfggen.render(kit, what, db, template_text=text)
            mine = qos_tables(sw) if what == "qos" else buffer_tables(sw)
            assert out == mine and all(db[t] == rows for t, rows in mine.items()), (sw.name, what)
        assert db["DSCP_TO_TC_MAP"]["ROCE"]["26"] in db["PORT_QOS_MAP"][sorted(db["PORT"])[0]]["pfc_enable"]


def test_buffer_topology_per_type_is_what_sonics_template_picks(kit, sonic_dbs):
    """platforms.nos.sonic_buffer_topology mirrors buffers_config.j2: per DEVICE_METADATA type, SONiC's generator
    either renders the t0/t1 defaults (told apart by their pool sizes) or asks for the file netauto names."""
    import re

    from netauto.platforms.hardware import load_hwsku
    from netauto.platforms.nos import sonic_buffer_topology

    _, db = next((n, d) for n, d in sonic_dbs if d["DEVICE_METADATA"]["localhost"]["type"] == "LeafRouter")
    sku = load_hwsku(db["DEVICE_METADATA"]["localhost"]["hwsku"])
    by_pool = {b.pools["ingress_lossy_pool"]["size"]: t for t, b in sku.buffer_defaults.items()}
    for kind in ("ToRRouter", "LeafRouter", "SpineRouter", "BackEndToRRouter", "BackEndLeafRouter", "MgmtToRRouter",
                 "LowerSpineRouter", "FabricSpineRouter", "UpperSpineRouter", "LowerRegionalHub", "SomethingElse"):
        typed = {**db, "DEVICE_METADATA": {"localhost": {**db["DEVICE_METADATA"]["localhost"], "type": kind}}}
        try:
            out = sonic_cfggen.render(kit, "buffers", typed)
            sonic = by_pool[int(out["BUFFER_POOL"]["ingress_lossy_pool"]["size"])]
        except sonic_cfggen.CfggenError as exc:
            sonic = re.search(r"buffers_defaults_(\w+)\.j2", str(exc)).group(1)  # type: ignore[union-attr]
        assert sonic_buffer_topology(kind) == sonic, kind
