"""Topology rules: rails aligned, non-blocking (or the declared oversubscription)."""

from __future__ import annotations

from netauto.validate.findings import Finding, Severity
from netauto.validate.rules import RuleOutput, rule
from netauto.validate.state import ParsedFabric
from netauto.netutil.ip import ipv4_interface as iface
from netauto.validate.rules._util import IFACES, end

NETPLAN = "etc/netplan/60-rails.yaml"


@rule(id="TOPO-01", severity="error", description="rails aligned: NIC k on the rail-k leaf, addressed in that leaf's subnet")
def rails_aligned(view: ParsedFabric) -> RuleOutput:
    nics = None
    for link in view.model.links:
        if link.kind != "server-leaf" or not link.enabled:
            continue
        leaf = view.intent(link.a_device)
        if nics is None:
            nics = {}
            for server in view.model.servers:
                for rail in server.rails:
                    nics[rail.nic] = rail.index
        if nics.get(link.b_port) != leaf.rail:
            yield link.b_device, f"{link.b_port} is cabled to {leaf.name} (rail {leaf.rail}), not to its rail-{nics.get(link.b_port)} leaf"
        srv = view.servers.get(link.b_device)
        nic = srv.nics.get(link.b_port) if srv else None
        st, port = end(view, link.a_device, link.a_port)
        if nic is None or st is None:
            if srv is not None and nic is None:
                yield link.b_device, f"{link.b_port} (cabled to {link.a_device} {link.a_port}) is missing from netplan", NETPLAN
            continue
        leaf_nets = [i.network for a in (port.addresses if port else []) if (i := iface(a))]
        leaf_nets += [i.network for addrs in st.svis.values() for a in addrs if (i := iface(a))]
        for a in nic.addresses:
            i = iface(a)
            if i and not any(i.ip in n for n in leaf_nets):
                yield link.b_device, (f"{nic.name} address {a} is outside every subnet of its leaf {link.a_device} "
                                      f"({', '.join(map(str, leaf_nets)) or 'none'})"), NETPLAN


@rule(id="TOPO-02", severity="error", description="non-blocking: per leaf and spine, downlink bandwidth <= uplink bandwidth x topology.oversubscription")
def non_blocking(view: ParsedFabric) -> RuleOutput:
    allowed = view.oversubscription
    three_tier = any(x.role == "super_spine" for x in view.model.switches)
    for sw in view.model.switches:
        if sw.role == "super_spine" or (sw.role == "spine" and not three_tier):
            continue  # no uplinks by design
        st = view.switches.get(sw.name)
        if st is None:
            continue
        design = [0, 0]  # down, up: every port of the design (a port disabled in the inventory still counts)
        now = [0, 0]  # only ports enabled in the inventory and up in the files
        for i in sw.interfaces:
            p = st.ports.get(i.name)
            speed = (p.speed_mbps if p and p.speed_mbps else i.speed_mbps)
            facing_down = i.kind == "host" or (sw.role == "spine" and i.peer_device is not None
                                               and view.intent(i.peer_device).role == "leaf")
            if i.kind != "host" and not facing_down and i.kind != "fabric":
                continue
            design[0 if facing_down else 1] += speed
            if p is not None and p.up and i.enabled:
                now[0 if facing_down else 1] += speed
        checks: tuple[tuple[list[int], Severity, str], ...] = (
            (design, "error", "by design"), (now, "warning", "with the disabled/down ports"))
        for (down, up), sev, what in checks:
            if down == 0:
                continue
            if up == 0:
                yield Finding("TOPO-02", sev, sw.name, f"{down // 1000}G of downlinks and no uplink {what}", IFACES)
                break
            ratio = down / up
            if ratio > allowed + 1e-9:
                yield Finding("TOPO-02", sev, sw.name,
                              f"oversubscribed {ratio:.2f}:1 {what} ({down // 1000}G down, {up // 1000}G up); "
                              f"the inventory allows {allowed:g}:1 (topology.oversubscription)", IFACES)
                break
