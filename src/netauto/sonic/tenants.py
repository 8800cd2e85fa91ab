"""Tenant VRFs on a SONiC leaf (inventory `tenants:`, netauto.model.tenants): the config_db tables of EVPN-VXLAN
symmetric routing with one L3VNI per tenant, as SONiC builds it (facts and sources: netauto.platforms.vxlan).

- VXLAN_TUNNEL|vtep src_ip = the loopback, VXLAN_EVPN_NVO|nvo source_vtep = vtep (sonic-vxlan.yang; vxlanorch.cpp
  makes the EVPN VTEP from the NVO, vrforch.cpp refuses a VRF VNI without it);
- per tenant: VLAN|Vlan<id> (the L3VNI's VLAN, no member port), VXLAN_TUNNEL_MAP|vtep|map_<vni>_Vlan<id>
  (vni, vlan), VRF|Vrf_<tenant> vni (sonic-vrf.yang), VLAN_INTERFACE|Vlan<id> vrf_name (sonic-vlan.yang): vxlanmgrd
  creates the kernel VXLAN device in SONiC's Bridge on that VLAN and zebra finds the L3VNI's SVI in the VRF
  (cfgmgr/vxlanmgr.cpp; sonic-utilities `config vxlan map add` writes the map key <tunnel>|map_<vni>_<vlan>,
  config/vxlan.py; `config vrf add_vrf_vni_map`, config/main.py);
- the tenant's server ports: INTERFACE|<port> vrf_name (sonic-interface.yang), rendered by netauto.sonic.config_db.

The VNI is held twice on purpose, and TEN-02 checks both agree: config_db's VRF `vni` for the ASIC (vrfmgrd writes
APP_DB VXLAN_VRF_TABLE evpn_map_<vni>_<vrf>, only once the NVO exists: cfgmgr/vrfmgr.cpp doVrfVxlanTableUpdate), and
frr.conf's `vrf <name>` / `vni` for zebra (nothing in SONiC writes it to FRR in split-unified mode).
FRR (the SONiC frr.conf, split-unified) is the shared underlay template: `vrf <name>` / `vni`, `router bgp <asn> vrf
<name>` with `advertise ipv4 unicast` and the tenant's route targets, `advertise-all-vni` (docs/tenants.md).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from netauto.errors import InventoryError, NetautoError
from netauto.model.types import FabricModel, Switch, VxlanQos
from netauto.platforms.vxlan import (
    SONIC_DECAP_DSCP_ACTION,
    SONIC_ENCAP_DSCP_ACTION,
    SONIC_NVO,
    SONIC_VRF_NAME_MAX,
    SONIC_VRF_PREFIX,
    SONIC_VTEP,
    sonic_l3vni_vlan,
    sonic_vrf_name,
)

if TYPE_CHECKING:  # the drain fast path loads SONiC's renderer without the inventory schema
    from netauto.inventory.loader import LoadedInventory

TABLES = ("VRF", "VXLAN_TUNNEL", "VXLAN_EVPN_NVO", "VXLAN_TUNNEL_MAP", "VLAN", "VLAN_INTERFACE")


def sonic_leaf_vrfs(sw: Switch) -> None:
    """A SONiC leaf's tenant VRFs and ports under SONiC's VRF names; the DSCP through VXLAN is SAI's default."""
    names = {v.tenant: sonic_vrf_name(v.tenant) for v in sw.vrfs}
    sw.vrfs = [replace(v, name=names[v.tenant]) for v in sw.vrfs]
    for iface in sw.host_ports:
        if iface.vrf is not None:
            iface.vrf = names[iface.vrf]
    sw.vxlan_qos = VxlanQos(SONIC_ENCAP_DSCP_ACTION, SONIC_DECAP_DSCP_ACTION)


def check_sonic_tenants(loaded: LoadedInventory, fabric: FabricModel) -> None:
    """What SONiC cannot hold, refused in one line: a VRF name over IFNAMSIZ, two tenants on one L3VNI VLAN."""
    for sw in fabric.switches:
        if sw.nos != "sonic" or not sw.vrfs:
            continue
        vlans: dict[int, str] = {}
        for v in sw.vrfs:
            if len(v.name) > SONIC_VRF_NAME_MAX:
                room = SONIC_VRF_NAME_MAX - len(SONIC_VRF_PREFIX)
                raise InventoryError(
                    f"tenant {v.tenant}: its VRF on SONiC leaf {sw.name} would be {v.name}, longer than SONiC's "
                    f"{SONIC_VRF_NAME_MAX} characters (sonic-vrf.yang: name pattern Vrf..., interface_name 1..15)",
                    hint=f"shorten the tenant's name to at most {room} characters",
                    **loaded.where("tenants", "members", v.tenant))
            vlan = sonic_l3vni_vlan(v.vni)
            if vlan in vlans:
                raise InventoryError(
                    f"tenants {vlans[vlan]} and {v.tenant} need the same L3VNI VLAN {vlan} on SONiC leaf {sw.name} "
                    "(VNI mod 2000: SONiC maps an L3VNI through a VLAN, sonic-utilities add_vrf_vni_map)",
                    hint=f"pin another `vni:` on whichever of {vlans[vlan]} and {v.tenant} is new (pinning the other "
                    "renumbers a running tenant)", **loaded.where("tenants", "members", v.tenant))
            vlans[vlan] = v.tenant


def tenant_tables(sw: Switch) -> dict[str, dict[str, Any]]:
    """The VXLAN/VRF tables of a tenant leaf (none elsewhere); the ports' vrf_name is config_db's INTERFACE."""
    if not sw.vrfs or sw.vxlan_source is None:
        return {}
    tables: dict[str, dict[str, Any]] = {
        "VXLAN_TUNNEL": {SONIC_VTEP: {"src_ip": sw.vxlan_source}},
        "VXLAN_EVPN_NVO": {SONIC_NVO: {"source_vtep": SONIC_VTEP}},
        "VRF": {}, "VXLAN_TUNNEL_MAP": {}, "VLAN": {}, "VLAN_INTERFACE": {},
    }
    for v in sw.vrfs:
        vlan = f"Vlan{sonic_l3vni_vlan(v.vni)}"
        tables["VRF"][v.name] = {"vni": str(v.vni)}
        tables["VXLAN_TUNNEL_MAP"][f"{SONIC_VTEP}|map_{v.vni}_{vlan}"] = {"vlan": vlan, "vni": str(v.vni)}
        tables["VLAN"][vlan] = {"vlanid": vlan.removeprefix("Vlan")}
        tables["VLAN_INTERFACE"][vlan] = {"vrf_name": v.name}
    return tables


def merge(db: dict[str, Any], tables: dict[str, dict[str, Any]], device: str) -> None:
    """Add the tenant tables to a config_db; one owner per row: a row another builder wrote is an error."""
    for name, rows in tables.items():
        mine = db.setdefault(name, {})
        clash = sorted(set(mine) & set(rows))
        if clash:
            raise NetautoError(f"{device}: config_db {name}|{clash[0]} written twice (tenant L3VNI and another table)")
        mine.update(rows)
