"""VXLAN/EVPN facts the tenant VRFs (netauto.model.tenants) rely on, each with its source.

- VNI: 24 bits (RFC 7348 s5, "VXLAN Network Identifier (VNI): a 24-bit value"); NVUE `vrf <id> evpn vni` and FRR
  `vni` take 1..16777214 (nvueschema v5_14 VrfEntryEvpnVni keys; FRR zebra `vni (1-16777215)`; 16777215 left out
  as NVUE reserves it).
- Encapsulation overhead: outer Ethernet 14 + outer IPv4 20 + UDP 8 + VXLAN 8 = 50 bytes (RFC 7348 s5; CL user
  guide "VXLAN Devices": "the MTU of the underlay must be at least 50 bytes more than the overlay's").
- DSCP through the tunnel: NVUE `nve vxlan encapsulation dscp action copy` writes the inner DSCP into the outer
  header, `decapsulation dscp action preserve` keeps the inner DSCP on decapsulation (nvueschema v5_x
  NveVxlanEncapsulationDscp: derive|copy|set, NveVxlanDecapsulationDscp: derive|copy|preserve); the Linux-files
  equivalent is switchd.conf `vxlan.def_encap_dscp_action` / `vxlan.def_decap_dscp_action` (CL user guide
  "VXLAN Devices", DSCP). The switch priority of the outer packet then follows the copied DSCP through the same
  trust-DSCP map as any RoCE packet, so PFC and ECN act on the RoCE class and CNPs keep their strict class.
- Route targets: with eBGP every leaf has its own ASN, so FRR's automatic RT (<own ASN>:<VNI>) differs per leaf;
  the tenant's RT is therefore explicit, <route_target_asn>:<VNI> (FRR doc "EVPN", route-target import/export).
"""

from __future__ import annotations

VNI_MIN = 1
VNI_MAX = 16777214
VXLAN_OVERHEAD = 50  # bytes: outer Ethernet + IPv4 + UDP + VXLAN header
ENCAP_DSCP_ACTION = "copy"  # outer DSCP := inner DSCP
DECAP_DSCP_ACTION = "preserve"  # inner DSCP kept as sent
CUMULUS_DSCP_ACTION_DEFAULT = "derive"  # both directions when unset (CL user guide "VXLAN Tunnel DSCP Operations")
SWITCHD_ENCAP_DSCP = "vxlan.def_encap_dscp_action"  # switchd.conf keys (same page, Linux files)
SWITCHD_DECAP_DSCP = "vxlan.def_decap_dscp_action"

# ---- SONiC (netauto.sonic.tenants; sonic-buildimage 086b03bd, sonic-swss e6b0c5b5, sonic-utilities 691b1bbc) ----
# Supported on the Spectrum platforms netauto knows (SN3420, SN4600C, SN5600): vxlanmgrd runs in every platform's swss
# container (dockers/docker-orchagent/supervisord.conf.common.j2), nothing under device/mellanox or platform/mellanox
# turns VXLAN off, and FRR's EVPN type-5 routes reach the ASIC through fpmsyncd (fpmsyncd/routesync.cpp: the route's
# vni_label and router_mac into APP_DB ROUTE_TABLE, routeorch's tunnel next hops). Read from source, not run here.
# VRF names: sonic-vrf.yang VRF_LIST name is stypes:interface_name (length 1..15, IFNAMSIZ) with pattern
# "Vrf[a-zA-Z0-9_-]+" (vrfmgrd creates the Linux VRF device under that name). A tenant's VRF on a SONiC leaf is
# SONIC_VRF_PREFIX + the tenant's name, so the tenant's name may have at most 15 - 4 characters there.
SONIC_VRF_PREFIX = "Vrf_"  # sonic-vrf.yang's own example name is "Vrf_blue"
SONIC_VRF_NAME_MAX = 15
# The VTEP: VXLAN_TUNNEL|<name> src_ip (sonic-vxlan.yang, max-elements 2) and the single VXLAN_EVPN_NVO|<name>
# source_vtep (max-elements 1). vxlanmgrd names the kernel VXLAN device <tunnel>-<vlan id> (cfgmgr/vxlanmgr.cpp),
# so the tunnel name stays short.
SONIC_VTEP = "vtep"
SONIC_NVO = "nvo"
# An L3VNI on SONiC is a VLAN mapped to the VNI (VXLAN_TUNNEL_MAP|vtep|map_<vni>_Vlan<id>), whose VLAN interface is
# in the VRF, and the VRF's `vni`: sonic-utilities `config vrf add_vrf_vni_map` refuses a VRF VNI without such a
# map ("VLAN VNI not mapped. Please create VLAN VNI map entry first", config/main.py), vrforch.cpp updateVrfVNIMap
# needs the EVPN NVO ("unable to find EVPN VTEP") and brings the L3VNI up on the VLAN mapped to the VNI
# (getVlanMappedToVni -> updateL3VniStatus). The VLAN is local to the leaf; netauto derives it from the VNI
# (SONIC_L3VNI_VLAN_FIRST + VNI mod SONIC_L3VNI_VLANS) so a tenant keeps its VLAN whatever other tenants do, and
# refuses two tenants of one leaf on the same VLAN. sonic-vlan.yang: Vlan1..Vlan4094; 4094 is netauto's MLAG
# peer-session VLAN, 1 the default VLAN.
SONIC_L3VNI_VLAN_FIRST = 2000
SONIC_L3VNI_VLANS = 2000  # VLANs 2000..3999
# DSCP through the tunnel on SONiC: there is no setting to render. VXLAN_TUNNEL has src_ip, dst_ip and ttl_mode only
# (sonic-vxlan.yang); vxlanorch.cpp create_tunnel sets no SAI_TUNNEL_ATTR_ENCAP_DSCP_MODE / DECAP_DSCP_MODE, so the
# SAI default applies: SAI_TUNNEL_DSCP_MODE_UNIFORM_MODEL (saitunnel.h "@default SAI_TUNNEL_DSCP_MODE_UNIFORM_MODEL":
# the outer DSCP is the inner one on encapsulation). SONiC's TUNNEL table with dscp_mode and decap_dscp_to_tc_map
# (sonic-tunnel.yang) is IP-in-IP only: tunnel_type pattern "IPINIP", tunneldecaporch.cpp rejects any other type.
# Decapsulation classifies on the outer header through the ingress port's DSCP_TO_TC_MAP like any RoCE packet. Whether
# NVIDIA's Spectrum SAI (closed source) honours the default for VXLAN is not readable anywhere: docs/tenants.md.
SONIC_ENCAP_DSCP_ACTION = "uniform"  # SAI default, not rendered
SONIC_DECAP_DSCP_ACTION = "uniform"


def sonic_vrf_name(tenant: str) -> str:
    return SONIC_VRF_PREFIX + tenant


def sonic_l3vni_vlan(vni: int) -> int:
    return SONIC_L3VNI_VLAN_FIRST + vni % SONIC_L3VNI_VLANS
