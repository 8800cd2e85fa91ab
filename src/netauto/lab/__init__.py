"""`netauto lab`: the rendered fabric on real FRR/ifupdown2 in network namespaces, no Docker.

* plan.py: model + rendered artifacts -> namespaces, veths (real port names, model cabling), node files,
  expectations (BGP sessions, ECMP widths, pings). Pure, unit-tested.
* adapt.py: lab variants for this kernel (no vrf/vlan/vlan_filtering/dummy): interfaces without the mgmt VRF,
  plain bridge for leaf-subnet SVIs; netplan and SONiC config_db applied with `ip`. frr.conf is never changed.
* runtime.py: preflight, up (node = netns + mount + UTS namespace running frrinit.sh, ifup -a, optional sshd),
  down (kill by namespace pid lists, delete namespaces, restore sysctls), state folder.
* check.py: cheap setns()-based BGP poller, vtysh confirmation, kernel ECMP widths, ping matrix.
"""
