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
