"""Derive the lab variant of rendered files, for a kernel without vrf/vlan/bond/dummy/vlan_filtering.

Pure text/data transforms (no root needed), so they are unit-tested. Every function returns the adapted
content plus a list of human-readable notes saying what was changed; `netauto lab up` prints them.
The FRR configuration is never adapted: the lab runs the rendered frr.conf byte for byte.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from netauto.formats.ifupdown import Block, parse_interfaces, render_blocks
from netauto.formats.netplan import NetplanLink, parse_netplan
from netauto.model.oob import MGMT_VRF
from netauto.netutil.interface import port_sort_key


FRR_MODULES = Path("/usr/lib/x86_64-linux-gnu/frr/modules")  # Debian's frr package: <daemon>_<module>.so


def _key(line: str) -> str:
    return line.strip().split(None, 1)[0] if line.strip() else ""


def _value(line: str) -> str:
    parts = line.strip().split(None, 1)
    return parts[1] if len(parts) > 1 else ""


def adapt_daemons(text: str, modules: Path = FRR_MODULES) -> tuple[str, list[str]]:
    """The rendered /etc/frr/daemons for this machine's FRR: drop `-M <module>` options whose module this FRR
    does not have (Debian's frr has zebra_cumulus_mlag but ships SNMP in frr-snmp); the switch keeps them."""
    notes: list[str] = []
    out = []
    for line in text.splitlines(keepends=True):
        m = re.match(r"^([a-z0-9]+)_options=", line)
        daemon = m.group(1) if m else ""
        for module in re.findall(r"-M ([A-Za-z0-9_]+)", line) if daemon else []:
            if not (modules / f"{daemon}_{module}.so").exists():
                line = re.sub(rf"-M {module} ?", "", line, count=1)
                notes.append(f"daemons: -M {module} dropped for {daemon} (no {daemon}_{module}.so in {modules})")
        out.append(line)
    return "".join(out), notes


def _vrf_comment(line: str) -> str:
    """`    vrf acme` -> `    # vrf acme (lab: ...)`; other lines unchanged."""
    if _key(line) != "vrf":
        return line
    indent = line[: len(line) - len(line.lstrip())]
    return f"{indent}# vrf {_value(line)} (lab: no vrf devices; the tenant's VRF is not applied)"


def adapt_interfaces(text: str, device: str) -> tuple[str, list[str]]:
    """The lab variant of a rendered Cumulus /etc/network/interfaces.

    * the VRF stanzas (`vrf-table auto`) are dropped, and so are `vrf mgmt` lines and the mgmt `gateway` of
      ports that were in that VRF (without the VRF it would become a data-plane default route); a tenant's
      `vrf <name>` stays as a comment, so the lab file still names the port's tenant (deploy's diff sees a move);
    * a VLAN-aware bridge becomes a plain bridge (no `bridge-vlan-aware`, `bridge-vids`, `bridge-pvid`,
      `bridge-access`); a VLAN SVI on it (`vlan-raw-device <bridge>`) cannot exist, so its addresses and MTU
      move onto the bridge itself. One SVI per bridge can be carried this way (the rail fabrics have one).
    """
    parsed = parse_interfaces(text)
    preamble, stanzas = parsed.preamble, parsed.blocks
    notes: list[str] = []
    vrf_names = {s.name for s in stanzas if any(_key(l) == "vrf-table" for l in s.body)}
    keep: list[Block] = []
    for s in stanzas:
        if s.name in vrf_names:
            notes.append(f"dropped VRF stanza '{s.name}' (kernel has no vrf)")
            continue
        keep.append(s)
    for s in keep:
        in_vrf = [l for l in s.body if _key(l) == "vrf"]
        if in_vrf:
            # a tenant VRF stays as a comment (ifupdown2 skips it): the lab file still says which tenant owns the
            # port, so a move between tenants is a diff against the lab device; mgmt's is dropped with its gateway
            s.body = [_vrf_comment(l) if _value(l) != MGMT_VRF else l for l in s.body]
            s.body = [l for l in s.body if _key(l) != "vrf"]
            gw = [l for l in s.body if _key(l) == "gateway"]
            s.body = [l for l in s.body if _key(l) != "gateway"]
            notes.append(
                f"{s.name}: " + ("removed" if _value(in_vrf[0]) == MGMT_VRF else "commented out") + f" '{in_vrf[0].strip()}'" + (f" and '{gw[0].strip()}' (would leak into the default table)" if gw else "")
            )
    bridges = {s.name: s for s in keep if any(_key(l) == "bridge-ports" for l in s.body)}
    vlan_aware = {n for n, s in bridges.items() if any(_key(l) == "bridge-vlan-aware" and _value(l) == "yes" for l in s.body)}
    drop_keys = {"bridge-vlan-aware", "bridge-vids", "bridge-pvid", "bridge-access", "bridge-allow-untagged"}
    out: list[Block] = []
    svi_moved: dict[str, str] = {}
    for s in keep:
        raw = [_value(l) for l in s.body if _key(l) == "vlan-raw-device"]
        if raw and raw[0] in vlan_aware:
            bridge = bridges[raw[0]]
            if raw[0] in svi_moved:
                notes.append(f"dropped SVI {s.name}: bridge {raw[0]} already carries SVI {svi_moved[raw[0]]} (no vlan devices)")
                continue
            moved = [l for l in s.body if _key(l) in {"address", "mtu"}]  # no vlan device: no virtual MAC either
            bridge.body = [l for l in bridge.body if _key(l) != "mtu"] + moved
            svi_moved[raw[0]] = s.name
            notes.append(
                f"SVI {s.name} (vlan {', '.join(_value(l) for l in s.body if _key(l) == 'vlan-id') or '?'}) folded into plain "
                f"bridge '{raw[0]}' (its {'/'.join(sorted({_key(l) for l in moved})) or 'nothing'} moved to the bridge; no vlan devices)"
            )
            continue
        before = len(s.body)
        if s.name in vlan_aware or any(_key(l) in drop_keys for l in s.body):
            s.body = [l for l in s.body if _key(l) not in drop_keys]
        # no mstpd in the lab: STP edge/BPDU guard are not emulated, and kernel STP would hold the host ports in
        # listening/learning for 30 s, so the lab bridge runs without STP
        if any(_key(l).startswith("mstpctl-") for l in s.body):
            s.body = [l for l in s.body if not _key(l).startswith("mstpctl-")]
            if not any("STP" in n for n in notes):
                notes.append("STP edge/BPDU guard (mstpctl-*) not emulated; lab bridges run without STP")
        if s.name in bridges:
            s.body = [l.replace("bridge-stp yes", "bridge-stp no") if _key(l) == "bridge-stp" else l for l in s.body]
        if s.name in vlan_aware:
            notes.append(f"bridge '{s.name}' made non-VLAN-aware (kernel lacks vlan_filtering)")
        elif len(s.body) != before and not any("bridge-access" in n for n in notes):
            notes.append("removed bridge-access from bridge ports (untagged members of the plain bridge)")
        out.append(s)
    comment = f"# netauto lab: adapted from the rendered file for device {device}; see `netauto lab up` output"
    return render_blocks(preamble, out, comment), notes


# ---------------------------------------------------------------------------------------------- hosts


NETPLAN_APPLIED = {"mtu", "dhcp4", "dhcp6", "link-local", "addresses", "routes", "routing-policy", "match", "set-name",
                   "optional"}  # optional only affects boot (networkd-wait-online): nothing to emulate


def netplan_links(text: str) -> tuple[list[NetplanLink], list[str]]:
    """The ethernets of a rendered netplan file that the lab applies with `ip` (no networkd/udev in a netns), and
    notes on what it does not emulate."""
    plan = parse_netplan(text)
    notes: list[str] = []
    for link in plan.ethernets.values():
        ignored = sorted(set(link.keys) - NETPLAN_APPLIED)
        if ignored:
            notes.append(f"{link.key}: netplan keys not emulated: {', '.join(ignored)}")
        if link.dhcp:
            notes.append(f"{link.key}: dhcp not emulated")
    for other in plan.sections:
        if other not in ("version", "renderer", "ethernets"):
            notes.append(f"netplan section '{other}' not emulated")
    return list(plan.ethernets.values()), notes


def netplan_ip_batch(nics: list[NetplanLink]) -> list[str]:
    """`ip -batch` lines applying the netplan data: what systemd-networkd would do for these keys."""
    cmds: list[str] = []
    for nic in nics:
        if not nic.link_local:
            cmds.append(f"link set dev {nic.name} addrgenmode none")
        if nic.mtu:
            cmds.append(f"link set dev {nic.name} mtu {nic.mtu}")
        for addr in nic.addresses:
            cmds.append(f"addr add {addr} dev {nic.name}")
        cmds.append(f"link set dev {nic.name} up")
    for nic in nics:
        for r in nic.routes:
            to = str(r["to"])
            to = "default" if to in {"default", "0.0.0.0/0"} else to
            parts = [f"route add {to}"]
            if r.get("via"):
                parts.append(f"via {r['via']}")
            parts.append(f"dev {nic.name}")
            if r.get("table"):
                parts.append(f"table {r['table']}")
            if r.get("scope"):
                parts.append(f"scope {r['scope']}")
            if r.get("metric") is not None:
                parts.append(f"metric {r['metric']}")
            if r.get("on-link"):
                parts.append("onlink")
            parts.append("proto static")
            cmds.append(" ".join(parts))
        for rule in nic.routing_policy:
            parts = ["rule add"]
            if rule.get("from"):
                parts.append(f"from {rule['from']}")
            if rule.get("to"):
                parts.append(f"to {rule['to']}")
            if rule.get("table"):
                parts.append(f"lookup {rule['table']}")
            if rule.get("priority") is not None:
                parts.append(f"priority {rule['priority']}")
            parts.append("proto static")
            cmds.append(" ".join(parts))
    return cmds


# ---------------------------------------------------------------------------------------------- SONiC


def sonic_config_db_batch(text: str) -> tuple[list[str], list[str]]:
    """`ip -batch` lines from config_db.json PORT / INTERFACE / LOOPBACK_INTERFACE (what SONiC's
    portmgrd/intfmgrd would program). Loopback addresses go on `lo` (no dummy devices on this kernel)."""
    db = json.loads(text)
    cmds: list[str] = []
    notes: list[str] = []
    for port, attrs in sorted((db.get("PORT") or {}).items(), key=lambda kv: port_sort_key(kv[0])):
        if attrs.get("mtu"):
            cmds.append(f"link set dev {port} mtu {attrs['mtu']}")
        if attrs.get("alias"):
            cmds.append(f"link set dev {port} alias '{attrs['alias']}'")
        if attrs.get("admin_status", "down") == "up":
            cmds.append(f"link set dev {port} up")
    for key in sorted(db.get("INTERFACE") or {}, key=port_sort_key):
        if "|" in key:
            port, prefix = key.split("|", 1)
            cmds.append(f"addr add {prefix} dev {port}")
    for key in sorted(db.get("LOOPBACK_INTERFACE") or {}):
        if "|" in key:
            lo, prefix = key.split("|", 1)
            cmds.append(f"addr add {prefix} dev lo")
            if not any(n.startswith("loopback") for n in notes):
                notes.append(f"loopback addresses of {lo} placed on lo (no dummy interfaces)")
    cmds.append("link set dev lo up")
    for key, attrs in sorted((db.get("MGMT_INTERFACE") or {}).items()):
        if "|" in key:
            port, prefix = key.split("|", 1)
            cmds += [f"addr add {prefix} dev {port}", f"link set dev {port} up"]
            if (attrs or {}).get("gwaddr"):
                notes.append(f"MGMT_INTERFACE {port}: gwaddr {attrs['gwaddr']} not installed (no mgmt VRF; it would leak into the default table)")
    for table in ("VLAN", "VLAN_INTERFACE", "PORTCHANNEL", "VRF", "MGMT_VRF_CONFIG"):
        if db.get(table):
            notes.append(f"config_db {table} not emulated")
    return cmds, notes

