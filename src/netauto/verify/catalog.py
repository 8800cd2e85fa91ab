"""The catalog of `netauto verify` checks: pure functions from (intent, running state of every device) to findings.

Each check covers one concern and names device, item, expected and actual. A check that cannot be made on a
device says so (status n/a) with the reason, e.g. a veth in the lab has no PHY, so speed and FEC are not there.
The checks live by what they look at: verify.fabric_checks (switches), verify.host_checks (servers),
verify.counter_checks (counters over a window); verify.check_base holds what they share.
"""

from __future__ import annotations

from netauto.verify.check_base import Check
from netauto.verify.counter_checks import check_counters
from netauto.verify.fabric_checks import check_bgp, check_drain, check_ecmp, check_fec, check_interfaces, check_lldp, \
    check_speed, check_switch_qos
from netauto.verify.host_checks import check_host_qos, check_host_routing

CATALOG: dict[str, Check] = {c.name: c for c in (
    Check("bgp", "every expected BGP session Established with the right peer, nothing unexpected", check_bgp),
    Check("drain", "graceful-shutdown only where the inventory drains", check_drain),
    Check("ecmp", "kernel ECMP width to every other leaf's prefixes equals the uplinks", check_ecmp),
    Check("lldp", "LLDP neighbours equal the cabling plan", check_lldp),
    Check("interface", "enabled ports up with the intended MTU, disabled ports down", check_interfaces),
    Check("speed", "link speed as intended", check_speed),
    Check("fec", "FEC as intended", check_fec),
    Check("qos", "RoCE QoS and adaptive routing as applied on the switch", check_switch_qos),
    Check("host-routing", "per-rail policy routing tables and rules", check_host_routing),
    Check("host-qos", "trust, PFC, ToS, ECN and CNP marking on every rail NIC", check_host_qos),
    Check("counters", "PFC pauses, ECN marks and CNPs over a window", check_counters),
)}
