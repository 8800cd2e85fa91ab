#!/usr/bin/env python3
"""pyavd's side of the per-device comparison (run by a python that has pyavd==6.4.0; bench_100k.py calls it).

An AVD l3ls-evpn fabric of 32 spines x 128 leaves (each leaf one uplink to every spine, eBGP underlay, EVPN
overlay): the documented pyavd pipeline per device (pyavd docs, "Reference: pyavd"): validate_inputs,
get_avd_facts (once, for the fabric), get_device_structured_config, get_device_config. Prints one JSON line:
{"devices": N, "seconds": total, "cpu": CPU seconds, "facts": s, "structured": s, "config": s}.
"""

from __future__ import annotations

import json
import time

import pyavd

SPINES, LEAVES = 32, 128


def fabric_inputs() -> dict:
    spines = [{"name": f"spine{i}", "id": i, "mgmt_ip": f"192.168.0.{i}/16"} for i in range(1, SPINES + 1)]
    leaves = [
        {"group": f"leaf{i}", "bgp_as": str(65100 + i),
         "nodes": [{"name": f"leaf{i}", "id": i, "mgmt_ip": f"192.168.1.{i}/16",
                    "uplink_switch_interfaces": [f"Ethernet{i}"] * SPINES}]}
        for i in range(1, LEAVES + 1)
    ]
    return {
        "fabric_name": "BENCH",
        "spine": {"defaults": {"platform": "7800R3", "loopback_ipv4_pool": "10.255.0.0/24", "bgp_as": "65000"},
                  "nodes": spines},
        "l3leaf": {"defaults": {"platform": "7050X3", "loopback_ipv4_pool": "10.255.1.0/24",
                                "vtep_loopback_ipv4_pool": "10.255.2.0/24", "uplink_ipv4_pool": "10.10.0.0/16",
                                "uplink_interfaces": [f"Ethernet{49 + s}" for s in range(SPINES)],
                                "uplink_switches": [f"spine{s}" for s in range(1, SPINES + 1)],
                                "virtual_router_mac_address": "00:1c:73:00:dc:01"},
                   "node_groups": leaves},
    }


def main() -> None:
    common = fabric_inputs()
    names = [f"spine{i}" for i in range(1, SPINES + 1)] + [f"leaf{i}" for i in range(1, LEAVES + 1)]
    hostvars = {n: {**common, "type": "spine" if n.startswith("spine") else "l3leaf"} for n in names}
    t0, c0 = time.perf_counter(), time.process_time()
    validated = {}
    for name, inputs in hostvars.items():
        result = pyavd.validate_inputs(inputs)
        if result.validation_result.violations:
            raise SystemExit(f"{name}: {result.validation_result.violations[:3]}")
        validated[name] = result.validated_data
    facts = pyavd.get_avd_facts(validated)
    t1 = time.perf_counter()
    structured = {n: pyavd.get_device_structured_config(n, validated[n], facts) for n in names}
    t2 = time.perf_counter()
    configs = {n: pyavd.get_device_config(structured[n]) for n in names}
    t3 = time.perf_counter()
    assert all("router bgp" in c for c in configs.values())
    print(json.dumps({"devices": len(names), "seconds": t3 - t0, "cpu": time.process_time() - c0, "facts": t1 - t0, "structured": t2 - t1,
                      "config": t3 - t2}))


if __name__ == "__main__":
    main()
