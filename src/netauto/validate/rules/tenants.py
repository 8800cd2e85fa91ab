"""Tenants (inventory `tenants:`, netauto.model.tenants): each tenant's server ports in its VRF, one L3VNI per
tenant across the fabric. Read from the Linux files (SONiC: config_db.json and frr.conf) and, where rendered, NVUE's
startup.yaml; the model's intent
says which tenant each port and VNI belong to. Reachability per VRF is the route simulation's (SIM-04/05)."""

from __future__ import annotations

from collections import defaultdict

from netauto.formats.frr import VrfConf
from netauto.model.types import Switch, TenantVrf
from netauto.platforms.vxlan import CUMULUS_DSCP_ACTION_DEFAULT, VXLAN_OVERHEAD
from netauto.validate.rules import RuleOutput, rule
from netauto.validate.rules._util import FRR, IFACES, file_of
from netauto.validate.state import ParsedFabric, SwitchState

NVUE = "etc/nvue.d/startup.yaml"


def _views(view: ParsedFabric, dev: str) -> list[tuple[SwitchState, str, str]]:
    """(state, interfaces file, frr file) of each view of `dev`: the Linux files or SONiC's config_db.json and
    frr.conf, then NVUE's."""
    out = []
    st = view.switches.get(dev)
    if st is not None:
        out.append((st, file_of(st, "interfaces", IFACES), file_of(st, "frr", FRR)))
    if dev in view.nvue:
        out.append((view.nvue[dev], NVUE, NVUE))
    return out


@rule(id="TEN-01", severity="error", description="tenants: every server port and tenant-owned prefix of a tenant "
                                                  "is in the tenant's VRF")
def ports_in_vrf(view: ParsedFabric) -> RuleOutput:
    """A tenant's port left in the default VRF (or in another tenant's) puts the server next to the underlay's
    loopbacks, or inside another tenant."""
    owner = {srv: t.name for t in view.model.tenants for srv in t.servers}
    if not owner:
        return
    for sw in view.model.switches:
        for st, ifaces, _ in _views(view, sw.name):
            for iface in sw.host_ports:
                tenant = owner.get(iface.peer_device or "")
                port = st.ports.get(iface.name)
                want = iface.vrf or tenant  # the tenant's VRF as this leaf's NOS names it (SONiC: Vrf_<tenant>)
                if tenant is None or port is None or port.vrf == want:
                    continue
                where = f"VRF {port.vrf}" if port.vrf else "the default VRF"
                yield sw.name, (f"{iface.name} ({iface.peer_device} of tenant {tenant}) is in {where}, not in "
                                f"VRF {want}"), ifaces
    yield from _prefixes_in_vrf(view)


def _prefixes_in_vrf(view: ParsedFabric) -> RuleOutput:
    """A tenant-owned prefix (model.tenant_prefixes) routed in another tenant's VRF, or in none: that tenant
    would reach the owner's storage or service subnet, or the owner would lose it."""
    for sw in view.model.switches:
        for st, _, frr in _views(view, sw.name):
            vrfs = st.bgp.vrfs if st.bgp is not None else {}
            for v in sw.vrfs:
                for prefix, via in v.routes:
                    holders = sorted(n for n, c in vrfs.items() if (prefix, via) in c.static_routes)
                    if holders != [v.name]:
                        where = f"VRF {', '.join(holders)}" if holders else "no VRF"
                        yield sw.name, (f"prefix {prefix} via {via} of tenant {v.tenant or v.name} is routed in {where}, not "
                                        f"(only) in VRF {v.name}"), frr


@rule(id="TEN-02", severity="error", description="tenants: one L3VNI per tenant VRF, the same on every leaf, "
                                                  "never shared by two VRFs; its tenant's route target only; a VXLAN "
                                                  "MTU between the hosts' and the fabric's - 50; DSCP copied through "
                                                  "VXLAN")
def vni_per_tenant(view: ParsedFabric) -> RuleOutput:
    """Two VRFs on one L3VNI share one routing domain on the wire (a leaf decapsulates into whichever VRF holds the
    VNI); a tenant whose VNI differs between leaves is two routing domains."""
    want = {t.name: t.vni for t in view.model.tenants}
    if not want:
        return
    rts = {t.route_target: t.name for t in view.model.tenants}
    holders: dict[int, dict[str, tuple[str, str]]] = defaultdict(dict)  # VNI -> VRF -> (device, file)
    for sw in view.model.switches:
        mine = {v.name for v in sw.vrfs}
        for st, ifaces, frr in _views(view, sw.name):
            vrfs = st.bgp.vrfs if st.bgp is not None else {}
            for v in sw.vrfs:
                got = vrfs.get(v.name)
                if got is not None:
                    yield from _route_targets(sw.name, v.name, v.tenant or v.name, got, rts, frr)
                yield from _vxlan_mtu(view, sw, st, v, ifaces)
                vni = got.vni if got is not None else None
                if vni is None:
                    yield sw.name, f"VRF {v.name} has no L3VNI (expected {v.vni})", frr
                    continue
                holders[vni].setdefault(v.name, (sw.name, frr))
                tenant = v.tenant or v.name
                if vni != want.get(tenant):
                    yield sw.name, f"VRF {v.name} on L3VNI {vni}, tenant {tenant} has {want.get(tenant)}", frr
            for name, got in vrfs.items():
                if got.vni is not None and name not in mine:
                    holders[got.vni].setdefault(name, (sw.name, frr))
            yield from _dscp_actions(sw, st, ifaces)
        yield from _sonic_bindings(view, sw)
    for vni, names in sorted(holders.items()):
        if len(names) > 1:
            dev, f = names[sorted(names)[-1]]
            yield dev, f"VNI collision: L3VNI {vni} is held by VRFs {', '.join(sorted(names))}", f


def _dscp_actions(sw: Switch, st: SwitchState, ifaces: str) -> RuleOutput:
    """A Cumulus VTEP copies the inner DSCP to the outer header and keeps it on decapsulation (model.VxlanQos): the
    spines queue RoCE and CNPs by the outer DSCP. SONiC sets nothing (SAI's default, platforms.vxlan)."""
    if sw.vxlan_qos is None or st.source == "config_db" or st.evpn is None:
        return
    f = ifaces if st.source == "nvue" else "etc/cumulus/switchd.conf"
    want = (sw.vxlan_qos.encap_dscp, sw.vxlan_qos.decap_dscp)
    for way, got, need in zip(("encapsulation", "decapsulation"), st.evpn.dscp_actions, want, strict=True):
        if got != need:
            shown = got if got is not None else f"{CUMULUS_DSCP_ACTION_DEFAULT} (unset: the default)"
            yield sw.name, (f"VXLAN {way} DSCP action {shown}, not {need}: RoCE and CNPs lose their class on the "
                            "underlay"), f


def _vxlan_mtu(view: ParsedFabric, sw: Switch, st: SwitchState, v: TenantVrf, ifaces: str) -> RuleOutput:
    """The L3VNI's VXLAN device, where the files set its MTU, carries the hosts' largest frame and fits the fabric
    ports with VXLAN's 50 bytes (platforms.vxlan.VXLAN_OVERHEAD; model.tenants refuses such an inventory, this reads
    the files back)."""
    mtus = st.evpn.vxlan_mtu if st.evpn is not None else {}
    mtu = mtus.get(v.vni, mtus.get(None))
    if mtu is None:
        return
    host = max((r.mtu for s in view.model.servers for r in s.rails), default=0)
    fabric = [p.mtu for i in sw.fabric_ports if (p := st.ports.get(i.name)) is not None and p.mtu is not None]
    what = f"VXLAN device of VRF {v.name} (VNI {v.vni}): MTU {mtu}"
    if mtu < host:
        yield sw.name, f"{what} below the hosts' MTU {host}: their frames are dropped between leaves", ifaces
    elif fabric and mtu > min(fabric) - VXLAN_OVERHEAD:
        yield sw.name, (f"{what} above the fabric MTU {min(fabric)} - {VXLAN_OVERHEAD} bytes of VXLAN: full frames "
                        "do not fit the underlay"), ifaces


def _route_targets(dev: str, vrf: str, tenant: str, got: VrfConf, rts: dict[str, str], frr: str) -> RuleOutput:
    """A tenant VRF imports and exports no other tenant's route target and leaks no other VRF's routes (`import vrf`,
    NVUE `route-import from-vrf`): either joins two tenants. Read in every view (frr.conf and NVUE's document); the
    per-VRF route simulation reads the Linux files only."""
    for verb, found in (("imports", got.rt_import), ("exports", got.rt_export)):
        for rt in sorted(found):
            if rts.get(rt, tenant) != tenant:
                yield dev, f"VRF {vrf} {verb} route target {rt} of tenant {rts[rt]} (a leak between tenants)", frr
    for other in sorted(got.import_vrfs):
        yield dev, f"VRF {vrf} imports the routes of VRF {other} (VRF route leaking)", frr


def _sonic_bindings(view: ParsedFabric, sw: Switch) -> RuleOutput:
    """A SONiC leaf holds each L3VNI twice: config_db for the ASIC (VRF vni, the VNI's VLAN in the VRF, the EVPN
    VTEP; readers.sonic.l3vnis) and frr.conf for zebra. Missing or different, one of them routes nothing."""
    st = view.switches.get(sw.name)
    if st is None or st.source != "config_db" or not sw.vrfs:
        return
    db = file_of(st, "interfaces", IFACES)
    if st.sonic_vtep is None:
        yield sw.name, ("no EVPN VTEP in config_db (VXLAN_EVPN_NVO naming a VXLAN_TUNNEL with src_ip): SONiC "
                        "programs no L3VNI"), db
        return
    frr = st.bgp.vrfs if st.bgp is not None else {}
    for v in sw.vrfs:
        got = st.sonic_l3vnis.get(v.name)
        zebra = frr[v.name].vni if v.name in frr else None
        if got is None:
            yield sw.name, (f"VRF {v.name}: config_db binds no L3VNI (VRF vni, a VXLAN_TUNNEL_MAP of it to a VLAN "
                            "whose VLAN_INTERFACE is in the VRF)"), db
        elif zebra is not None and got != zebra:
            yield sw.name, f"VRF {v.name}: config_db L3VNI {got}, frr.conf vni {zebra} (the ASIC and zebra disagree)", db
