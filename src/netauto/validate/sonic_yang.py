"""Check SONiC config_db.json against SONiC's own YANG models with `yanglint` (Debian `libyang-tools`).

config_db.json is not YANG-JSON: SONiC's tables become `<module>:<module>` / `<TABLE>` / `<TABLE>_LIST`
entries, `a|b` keys become key leaves and integer leaves (int8..uint32) become JSON numbers while uint64
stays a string. `to_yang_json` converts the tables netauto renders (an unknown table is an error, never
silently dropped); `check_config_dbs` runs one `yanglint` over every converted file and maps libyang's
data locations back to config_db names (`PORT_QOS_MAP|Ethernet0 pfc_enable: ...`).

The YANG models are the user's (e.g. `sonic-buildimage/src/sonic-yang-models/yang-models`, with the
`yang-templates/*.yang.j2` rendered); netauto does not ship them.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from netauto.errors import NetautoError
from netauto.platforms.nos import sonic_path
from netauto.validate.tool_path import find_tool

YANGLINT_TIMEOUT_S = 300


@dataclass(frozen=True, slots=True)
class Table:
    """How one config_db table maps onto its YANG module."""

    module: str
    lists: Mapping[int, tuple[str, tuple[str, ...]]] = field(default_factory=dict)  # key parts -> (list, key leaves)
    containers: bool = False  # DEVICE_METADATA|localhost, MGMT_VRF_CONFIG|vrf_global: each key is a container
    inner: tuple[str, str, str] | None = None  # map tables: (inner list, key leaf, value leaf)
    numbers: frozenset[str] = frozenset()  # int8..uint32 leaves: JSON numbers in YANG-JSON
    booleans: frozenset[str] = frozenset()
    leaf_lists: frozenset[str] = frozenset()  # config_db "a,b" strings that are YANG leaf-lists


def _single(table: str, *keys: str) -> dict[int, tuple[str, tuple[str, ...]]]:
    return {len(keys): (f"{table}_LIST", keys)}


def _l3(table: str) -> dict[int, tuple[str, tuple[str, ...]]]:
    return {1: (f"{table}_LIST", ("name",)), 2: (f"{table}_IPPREFIX_LIST", ("name", "ip-prefix"))}


TABLES: dict[str, Table] = {
    "DEVICE_METADATA": Table("sonic-device_metadata", containers=True,
                             numbers=frozenset({"bgp_asn", "deployment_id", "switch_id", "max_cores"}),
                             booleans=frozenset({"frr_mgmt_framework_config", "bgp_adv_lo_prefix_as_128",
                                                 "create_only_config_db_buffers", "storage_device"})),
    "PORT": Table("sonic-port", _single("PORT", "name"),
                  numbers=frozenset({"speed", "mtu", "index", "subport", "dhcp_rate_limit", "laser_freq"}),
                  booleans=frozenset({"mux_cable", "fast_linkup"})),
    "BREAKOUT_CFG": Table("sonic-breakout_cfg", _single("BREAKOUT_CFG", "port")),
    "INTERFACE": Table("sonic-interface", _l3("INTERFACE"), numbers=frozenset({"nat_zone"})),
    "LOOPBACK_INTERFACE": Table("sonic-loopback-interface", _l3("LOOPBACK_INTERFACE"), numbers=frozenset({"nat_zone"})),
    "VLAN": Table("sonic-vlan", _single("VLAN", "name"), numbers=frozenset({"vlanid", "mtu"})),
    "VLAN_MEMBER": Table("sonic-vlan", _single("VLAN_MEMBER", "name", "port")),
    "VLAN_INTERFACE": Table("sonic-vlan", _l3("VLAN_INTERFACE"), numbers=frozenset({"nat_zone"}),
                            booleans=frozenset({"secondary"})),
    "MGMT_PORT": Table("sonic-mgmt_port", _single("MGMT_PORT", "name"), numbers=frozenset({"speed", "mtu"})),
    "MGMT_INTERFACE": Table("sonic-mgmt_interface", _single("MGMT_INTERFACE", "name", "ip_prefix")),
    "MGMT_VRF_CONFIG": Table("sonic-mgmt_vrf", containers=True, booleans=frozenset({"mgmtVrfEnabled"})),
    "DSCP_TO_TC_MAP": Table("sonic-dscp-tc-map", _single("DSCP_TO_TC_MAP", "name"),
                            inner=("DSCP_TO_TC_MAP", "dscp", "tc"), numbers=frozenset({"tc"})),
    "TC_TO_QUEUE_MAP": Table("sonic-tc-queue-map", _single("TC_TO_QUEUE_MAP", "name"),
                             inner=("TC_TO_QUEUE_MAP", "tc", "qindex"), numbers=frozenset({"tc"})),
    "TC_TO_PRIORITY_GROUP_MAP": Table("sonic-tc-priority-group-map", _single("TC_TO_PRIORITY_GROUP_MAP", "name"),
                                      inner=("TC_TO_PRIORITY_GROUP_MAP", "tc", "pg"), numbers=frozenset({"tc"})),
    "MAP_PFC_PRIORITY_TO_QUEUE": Table("sonic-pfc-priority-queue-map", _single("MAP_PFC_PRIORITY_TO_QUEUE", "name"),
                                       inner=("MAP_PFC_PRIORITY_TO_QUEUE", "pfc_priority", "qindex")),
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": Table(
        "sonic-pfc-priority-priority-group-map", _single("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "name"),
        inner=("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "pfc_priority", "pg")),
    "PORT_QOS_MAP": Table("sonic-port-qos-map", _single("PORT_QOS_MAP", "ifname")),
    "WRED_PROFILE": Table("sonic-wred-profile", _single("WRED_PROFILE", "name"),
                          booleans=frozenset({"wred_green_enable", "wred_yellow_enable", "wred_red_enable"})),
    "SCHEDULER": Table("sonic-scheduler", _single("SCHEDULER", "name"),
                       numbers=frozenset({"weight", "priority", "cbs", "pbs"})),
    "QUEUE": Table("sonic-queue", _single("QUEUE", "ifname", "qindex")),
    "CABLE_LENGTH": Table("sonic-cable-length", _single("CABLE_LENGTH", "name"),
                          inner=("CABLE_LENGTH", "port", "length")),
    "BUFFER_POOL": Table("sonic-buffer-pool", _single("BUFFER_POOL", "name"), numbers=frozenset({"percentage"})),
    "BUFFER_PROFILE": Table("sonic-buffer-profile", _single("BUFFER_PROFILE", "name"),
                            numbers=frozenset({"dynamic_th"})),
    "BUFFER_PG": Table("sonic-buffer-pg", _single("BUFFER_PG", "port", "pg_num")),
    "BUFFER_QUEUE": Table("sonic-buffer-queue", _single("BUFFER_QUEUE", "port", "qindex")),
    # tables a switch booted with its SKU defaults keeps beside netauto's (deploy validates the whole target)
    "BUFFER_PORT_INGRESS_PROFILE_LIST": Table("sonic-buffer-port-ingress-profile-list",
                                              _single("BUFFER_PORT_INGRESS_PROFILE_LIST", "port"),
                                              leaf_lists=frozenset({"profile_list"})),
    "BUFFER_PORT_EGRESS_PROFILE_LIST": Table("sonic-buffer-port-egress-profile-list",
                                             _single("BUFFER_PORT_EGRESS_PROFILE_LIST", "port"),
                                             leaf_lists=frozenset({"profile_list"})),
    "DEVICE_NEIGHBOR": Table("sonic-device_neighbor", _single("DEVICE_NEIGHBOR", "peer_name")),
    "BGP_NEIGHBOR": Table("sonic-bgp-neighbor", {1: ("BGP_NEIGHBOR_TEMPLATE_LIST", ("neighbor",)),
                                                 2: ("BGP_NEIGHBOR_LIST", ("vrf_name", "neighbor"))},
                          numbers=frozenset({"asn", "holdtime", "keepalive", "nhopself", "rrclient"})),
    "FLEX_COUNTER_TABLE": Table("sonic-flex_counter", containers=True, numbers=frozenset({"POLL_INTERVAL"})),
    # MLAG access pairs (networks with host_routing: bond)
    "PORTCHANNEL": Table("sonic-portchannel", _single("PORTCHANNEL", "name"), numbers=frozenset({"mtu", "min_links"})),
    "PORTCHANNEL_MEMBER": Table("sonic-portchannel", _single("PORTCHANNEL_MEMBER", "name", "port")),
    "MCLAG_DOMAIN": Table("sonic-mclag", _single("MCLAG_DOMAIN", "domain_id"),
                          numbers=frozenset({"domain_id", "keepalive_interval", "session_timeout"})),
    "MCLAG_INTERFACE": Table("sonic-mclag", _single("MCLAG_INTERFACE", "domain_id", "if_name"),
                             numbers=frozenset({"domain_id"})),
    "MCLAG_UNIQUE_IP": Table("sonic-mclag", _single("MCLAG_UNIQUE_IP", "if_name")),
    "SAG": Table("sonic-static-anycast-gateway", _single("SAG", "name")),
    # tenant VRFs (netauto.sonic.tenants): VRF vni is a uint32, VXLAN_TUNNEL_MAP vni a stypes:vnid_type (uint32)
    "VRF": Table("sonic-vrf", _single("VRF", "name"), numbers=frozenset({"vni"}), booleans=frozenset({"fallback"})),
    "VXLAN_TUNNEL": Table("sonic-vxlan", _single("VXLAN_TUNNEL", "name")),
    "VXLAN_EVPN_NVO": Table("sonic-vxlan", _single("VXLAN_EVPN_NVO", "name")),
    "VXLAN_TUNNEL_MAP": Table("sonic-vxlan", _single("VXLAN_TUNNEL_MAP", "name", "mapname"), numbers=frozenset({"vni"})),
    "PFC_WD": Table("sonic-pfcwd", _single("PFC_WD", "ifname"),
                    numbers=frozenset({"detection_time", "restoration_time", "POLL_INTERVAL"})),
}


class SonicYangError(NetautoError):
    """The SONiC YANG check could not run (bad models folder, unknown table, yanglint failure)."""


def _typed(table: str, spec: Table, leaf: str, value: Any) -> Any:
    if leaf in spec.leaf_lists and isinstance(value, str):  # sonic-cfggen writes a leaf-list as "a,b"
        return [v for v in value.split(",") if v]
    if isinstance(value, list):
        return [_typed(table, spec, leaf, v) for v in value]
    if leaf in spec.numbers:
        try:
            return int(value)
        except (TypeError, ValueError):
            return value  # let yanglint report the bad value with its own message
    if leaf in spec.booleans and isinstance(value, str) and value in {"true", "false"}:
        return value == "true"
    return value


def _convert_table(name: str, spec: Table, rows: Mapping[str, Any]) -> dict[str, Any]:
    if spec.containers:
        return {key: {leaf: _typed(name, spec, leaf, v) for leaf, v in fields.items()} for key, fields in rows.items()}
    out: dict[str, list[dict[str, Any]]] = {}
    for key, fields in rows.items():
        parts = key.split("|")
        if len(parts) not in spec.lists:
            want = " or ".join(f"{n} part(s)" for n in spec.lists)
            raise SonicYangError(f"config_db {name}|{key}: key has {len(parts)} part(s), the YANG model expects {want}")
        list_name, key_leaves = spec.lists[len(parts)]
        entry: dict[str, Any] = {leaf: _typed(name, spec, leaf, part) for leaf, part in zip(key_leaves, parts)}
        if spec.inner:
            inner_list, inner_key, inner_value = spec.inner
            entry[inner_list] = [
                {inner_key: _typed(name, spec, inner_key, k), inner_value: _typed(name, spec, inner_value, v)}
                for k, v in fields.items()
            ]
        else:
            for leaf, v in fields.items():
                entry[leaf] = _typed(name, spec, leaf, v)
        out.setdefault(list_name, []).append(entry)
    return out


def to_yang_json(config_db: Mapping[str, Any]) -> dict[str, Any]:
    """config_db.json (as a dict) -> YANG-JSON instance data for the SONiC models."""
    result: dict[str, Any] = {}
    for name, rows in config_db.items():
        spec = TABLES.get(name)
        if spec is None:
            raise SonicYangError(f"config_db table {name} has no YANG mapping in netauto.validate.sonic_yang.TABLES")
        top = f"{spec.module}:{spec.module}"
        result.setdefault(top, {})[name] = _convert_table(name, spec, rows)
    return result


def modules_for(config_db: Mapping[str, Any]) -> list[str]:
    return sorted({TABLES[t].module for t in config_db if t in TABLES})


# ------------------------------------------------------------------------------------------- yanglint
def yanglint_path() -> str | None:
    return find_tool("yanglint")  # the system folders before PATH, as every validator


def check_models_dir(models: Path) -> Path:
    models = Path(models)
    if not models.is_dir():
        raise SonicYangError(f"--sonic-yang {models}: not a folder")
    if not (models / "sonic-types.yang").is_file():
        hint = " (render yang-templates/sonic-types.yang.j2 first)" if (models / "sonic-types.yang.j2").exists() else ""
        raise SonicYangError(f"--sonic-yang {models}: no sonic-types.yang here; point at the folder of SONiC's "
                             f".yang files (sonic-buildimage src/sonic-yang-models/yang-models){hint}")
    return models


def _imports(models: Path) -> dict[str, tuple[Path, list[str]]]:
    mods = {p.stem: p for p in sorted(Path(models).glob("*.yang"))}
    return {m: (p, sorted(set(re.findall(r"^\s*import\s+([\w.-]+)", p.read_text(encoding="utf-8"), re.MULTILINE)) & mods.keys()))
            for m, p in mods.items()}


def schema_files(models: Path, needed: list[str] | None = None) -> list[Path]:
    """The modules `needed` (default: all of the folder) and everything they import, each after its imports.

    SONiC's models cross-reference each other in `when`/`must` XPath (PORT lanes -> DEVICE_METADATA) and
    leafrefs; libyang skips such a check when the referenced module is only imported, not implemented, at
    compile time. Every referenced module is an import, so loading the import closure explicitly, imports
    first, implements them all (and is ~15x faster than loading the whole folder).
    """
    graph = _imports(models)
    order: list[str] = []
    seen: set[str] = set()

    def visit(m: str) -> None:
        if m not in seen:
            seen.add(m)
            for dep in graph[m][1]:
                visit(dep)
            order.append(m)

    for m in (needed if needed is not None else list(graph)):
        if m not in graph:
            raise SonicYangError(f"--sonic-yang {models}: missing the YANG module {m}.yang")
        visit(m)
    return [graph[m][0] for m in order]


_LOCATION = re.compile(r'\((?:Data|Schema) location "?([^")]*)"?(?:, line number (\d+))?\.?\)')
_STEP = re.compile(r"/?([^/\[]+)((?:\[[^\]]*\])*)")
_PRED = re.compile(r"\[([^=\]]+)='([^']*)'\]")


def config_db_location(path: str) -> str:
    """libyang data (or schema) location -> config_db spelling.

    `/sonic-port-qos-map:sonic-port-qos-map/PORT_QOS_MAP/PORT_QOS_MAP_LIST[ifname='Ethernet0']/pfc_enable`
    -> `PORT_QOS_MAP|Ethernet0 pfc_enable`; `/sonic-port:sonic-port/PORT/PORT_LIST/lanes` -> `PORT lanes`.
    """
    steps = [(m.group(1).split(":")[-1], _PRED.findall(m.group(2))) for m in _STEP.finditer(path) if m.group(1)]
    if len(steps) < 2:
        return path
    table = steps[1][0]
    spec = TABLES.get(table)
    keys: list[str] = []
    fields: list[str] = []
    for i, (name, preds) in enumerate(steps[2:]):
        if preds:
            keys += [value for _, value in preds]
        elif i == 0 and spec is not None and spec.containers:
            keys.append(name)
        elif not (name.endswith("_LIST") or name == table):
            fields.append(name)
    return f"{'|'.join([table, *keys])} {'/'.join(fields)}".strip()


def _readable(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        line = line.strip()
        if not line or not line.startswith("libyang err"):
            continue
        text = line.split(":", 1)[1].strip()
        m = _LOCATION.search(text)
        if m:
            text = f"{config_db_location(m.group(1))}: {text[: m.start()].strip()}"
        out.append(text)
    return out


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=YANGLINT_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise SonicYangError(f"yanglint timed out after {YANGLINT_TIMEOUT_S} s") from None


def check_config_dbs(config_dbs: Mapping[str, Mapping[str, Any]], models: Path,
                     yanglint: str | None = None) -> dict[str, list[str]]:
    """Validate each config_db (name -> dict) against the SONiC YANG models in `models`.

    Returns name -> readable errors (empty list: valid). One yanglint run covers every file when they are
    all valid; a failing batch is re-run file by file so each error is attributed to its device.
    """
    yanglint = yanglint or yanglint_path()
    if not yanglint:
        raise SonicYangError("yanglint not found: install Debian/Ubuntu package libyang-tools")
    models = check_models_dir(models)
    if not config_dbs:
        return {}
    with tempfile.TemporaryDirectory(prefix="netauto-sonic-yang-") as tmp:
        files: dict[str, Path] = {}
        for i, (name, db) in enumerate(config_dbs.items()):
            path = Path(tmp) / f"{i:05d}.json"
            path.write_text(json.dumps(to_yang_json(db), indent=1), encoding="utf-8")
            files[name] = path
        needed = sorted({m for db in config_dbs.values() for m in modules_for(db)})
        base = [yanglint, "-t", "config", "-p", str(models), *map(str, schema_files(models, needed))]
        proc = _run(base + [str(p) for p in files.values()])
        if proc.returncode == 0:
            return {name: [] for name in files}
        results: dict[str, list[str]] = {}
        for name, path in files.items():  # yanglint stops at the first invalid file and does not name it
            one = _run(base + [str(path)])
            if one.returncode == 0:
                results[name] = []
            else:
                errors = _readable(one.stderr.splitlines())
                results[name] = errors or [one.stderr.strip() or f"yanglint exited {one.returncode}"]
        if not any(results.values()):
            raise SonicYangError(f"yanglint failed on the batch but on no single file: {proc.stderr.strip()}")
        return results


# ------------------------------------------------------------------------------------------- artifacts
CONFIG_DB_PATH = sonic_path("config_db")


@dataclass
class SonicYangReport:
    """Outcome of checking every rendered config_db.json: passed, failed (errors per device) or skipped."""

    files: int = 0
    skipped: str | None = None  # why the check did not run
    errors: dict[str, list[str]] = field(default_factory=dict)  # device -> readable errors

    @property
    def ok(self) -> bool:
        return not self.errors


def check_artifacts(artifacts: Any, models: Path | None, *, yanglint: str | None = None) -> SonicYangReport:
    """Validate every `etc/sonic/config_db.json` artifact (netauto.render.engine.Artifact) in memory."""
    dbs: dict[str, Any] = {}
    for art in artifacts:
        if art.path == CONFIG_DB_PATH:
            try:
                dbs[art.device] = json.loads(art.content)
            except json.JSONDecodeError as exc:
                raise SonicYangError(f"{art.device} {art.path}: not JSON ({exc})") from None
    report = SonicYangReport(files=len(dbs))
    if not dbs:
        report.skipped = "no SONiC switches in this fabric"
        return report
    if models is None:
        report.skipped = ("no SONiC YANG models given (pass --sonic-yang DIR: the yang-models folder of "
                          "sonic-buildimage, set NETAUTO_SONIC_YANG_DIR, or run scripts/get-sonic-yang-models)")
        return report
    yanglint = yanglint or yanglint_path()
    if not yanglint:
        report.skipped = "yanglint not installed (Debian/Ubuntu package libyang-tools)"
        return report
    report.errors = {dev: errs for dev, errs in check_config_dbs(dbs, models, yanglint).items() if errs}
    return report
