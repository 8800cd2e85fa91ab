"""Physical layer and load balancing: speed/FEC/MTU per link, no LAGs, adaptive routing uniform."""

from __future__ import annotations

from collections.abc import Iterator

from netauto.validate.rules import RuleOutput, rule
from netauto.validate.state import ParsedFabric, SwitchState
from netauto.validate.rules._util import IFACES, end, fabric_links, file_of
from netauto.platforms.hardware import load_hardware

AR_FILE = "etc/cumulus/switchd.d/adaptive_routing.conf"


@rule(id="PHY-01", severity="error", description="equal speed and FEC on both ends of every fabric link; never FEC auto")
def speed_fec(view: ParsedFabric) -> RuleOutput:
    for link in fabric_links(view):
        sa, pa = end(view, link.a_device, link.a_port)
        sb, pb = end(view, link.b_device, link.b_port)
        if pa is None or pb is None:
            continue
        where = f"{link.a_port} <-> {link.b_device} {link.b_port}"
        if pa.speed_mbps != pb.speed_mbps:
            yield link.a_device, f"{where}: speed {pa.speed_mbps} vs {pb.speed_mbps} Mb/s", file_of(sa, "interfaces", IFACES)
        if pa.fec != pb.fec:
            yield link.a_device, f"{where}: FEC {pa.fec or 'default'} vs {pb.fec or 'default'}", file_of(sa, "interfaces", IFACES)
    for dev, st in view.switches.items():
        for p in st.ports.values():
            if p.fec == "auto":
                yield dev, f"{p.name}: explicit FEC auto flaps the link on reload; leave it unset", file_of(st, "interfaces", IFACES)


@rule(id="PHY-04", severity="error", description="MTU chain: host >= 4200 and <= its leaf port; fabric ends equal; switch <= 9216")
def mtu_chain(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        for p in st.ports.values():
            if p.mtu is not None and p.mtu > 9216:
                yield dev, f"{p.name}: MTU {p.mtu} above 9216", file_of(st, "interfaces", IFACES)
    for link in fabric_links(view):
        _, pa = end(view, link.a_device, link.a_port)
        _, pb = end(view, link.b_device, link.b_port)
        if pa and pb and pa.mtu != pb.mtu:
            yield link.a_device, f"{link.a_port} <-> {link.b_device} {link.b_port}: MTU {pa.mtu} vs {pb.mtu}", IFACES
    lossy = {s.name for s in view.model.servers if not s.qos.lossless}  # a lossy network carries no RoCE
    for link in view.model.links:
        if link.kind != "server-leaf" or not link.enabled:
            continue
        srv = view.servers.get(link.b_device)
        nic = srv.nics.get(link.b_port) if srv else None
        if nic is None:
            continue
        _, port = end(view, link.a_device, link.a_port)
        f = "etc/netplan/60-rails.yaml"
        if (nic.mtu is None or nic.mtu < 4200) and link.b_device not in lossy:
            yield link.b_device, f"{nic.name}: MTU {nic.mtu or 1500} below 4200 (4 KB RoCE MTU needs 4200)", f
        elif port and port.mtu is not None and nic.mtu is not None and nic.mtu > port.mtu:
            yield link.b_device, f"{nic.name}: MTU {nic.mtu} above its leaf port {link.a_device} {link.a_port} ({port.mtu})", f


@rule(id="LAG-01", severity="error", description="no LAG on fabric links: individual routed ports with ECMP")
def no_lag(view: ParsedFabric) -> RuleOutput:
    for link in fabric_links(view, enabled_only=False):
        for dev, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            st, p = end(view, dev, port)
            if p is not None and p.bond:
                yield dev, f"fabric port {port} is a member of bond {p.bond}", file_of(st, "interfaces", IFACES)


@rule(id="AR-01", severity="error", description="adaptive routing uniform: all switches and all fabric ports, or none")
def ar_uniform(view: ParsedFabric) -> RuleOutput:
    states = {dev: st.ar_global for dev, st in view.switches.items()}
    if not states:
        return
    on = sum(states.values())
    majority = on * 2 >= len(states) if on else False
    for dev, st in view.switches.items():
        if st.ar_global != majority:
            yield dev, (f"adaptive routing {'on' if st.ar_global else 'off'} while {on if majority else len(states) - on} "
                        f"of {len(states)} switches have it {'on' if majority else 'off'}"), AR_FILE
        if st.ar_global:
            ports = [p.name for p in view.intent(dev).fabric_ports]
            missing = [p for p in ports if p not in st.ar_ports]
            if missing:
                yield dev, f"adaptive routing off on fabric port(s) {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}", AR_FILE


def _lane_states(view: ParsedFabric, dev: str, st: SwitchState) -> Iterator[tuple[SwitchState, SwitchState, str]]:
    """(state, file) pairs that say how many lanes each port has: config_db on SONiC; on Cumulus both
    ports.conf (Linux files) and NVUE `link breakout`, each against the Linux-files/NVUE port list."""
    if st.source == "config_db":
        yield st, st, file_of(st, "interfaces", IFACES)
        return
    yield st, st, "etc/cumulus/ports.conf"
    nv = view.nvue.get(dev)
    if nv is not None:
        yield nv, nv, "etc/nvue.d/startup.yaml"


@rule(id="PHY-05", severity="error", description="every port runs on the lanes its speed needs (400G on an 8 x 100G cage is a 2x breakout of 4 lanes)")
def port_lanes(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        sw = view.intent(dev)
        hardware = load_hardware(sw.hardware)
        for ports_of, breakouts_of, f in _lane_states(view, dev, st):
            bad = []
            for iface in sw.interfaces:
                p = ports_of.ports.get(iface.name)
                if p is None or iface.cage not in hardware.cages or not iface.lanes:
                    continue
                lanes = p.lanes if st.source == "config_db" else (
                    len(hardware.cages[iface.cage].lanes) // breakouts_of.breakouts.get(iface.cage, 1))
                speed = p.speed_mbps or iface.speed_mbps
                if lanes and speed // lanes != iface.speed_mbps // len(iface.lanes):
                    bad.append(f"{iface.name} {speed // 1000}G on {lanes} lane(s) ({speed // lanes // 1000}G each; "
                               f"needs {len(iface.lanes)} x {iface.speed_mbps // len(iface.lanes) // 1000}G, "
                               f"a {iface.breakout}x breakout of cage {iface.cage})")
            if bad:
                yield dev, f"{bad[0]}{f' and {len(bad) - 1} more port(s)' if len(bad) > 1 else ''}: the link does not come up", f
