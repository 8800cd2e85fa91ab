"""The server checks of `netauto verify`: per-rail policy routing (addresses, tables, rules, bonds) and the RoCE
QoS of every rail NIC (trust, PFC, ToS, ECN, CNP)."""

from __future__ import annotations

from collections.abc import Iterable

from netauto.formats import device_json
from netauto.model.types import HostBond, Route
from netauto.napalm import parsers
from netauto.verify.expect import Intent
from netauto.verify.findings import CheckResult, compare, na
from netauto.verify.state import DeviceState
from netauto.verify.check_base import States, _servers


# ---------------------------------------------------------------------------------------------- hosts


def check_host_routing(it: Intent, states: States) -> Iterable[CheckResult]:
    """Each NIC of the network as its netplan file renders it: the address, and per-NIC policy routing
    (`from <nic ip> lookup <table>` at the rule priority, the table's routes); a bonded NIC pair (`host_routing:
    bond`): the bond's mode, members, state, MTU, address and routes instead."""
    for srv in _servers(it, states):
        st = states[srv.name]
        addrs = parsers.parse_ip_addr(st.out("addrs") or "[]") if st.out("addrs") is not None else None
        rules = device_json.loads(st.out("rules") or "[]")
        routes = device_json.loads(st.out("routes_all") or "[]")
        if srv.bond is not None:
            yield from _bond(srv.name, srv.bond, st, addrs, routes)
            continue
        for r in srv.rails:
            yield from _address(srv.name, r.nic, r.address, addrs)
            hit = [x for x in rules if x.get("priority") == r.rule_priority]
            got = ", ".join(f"from {x.get('src', 'all')} lookup {x.get('table')}" for x in hit) or "no rule"
            yield compare("host-routing", srv.name, f"{r.nic} rule {r.rule_priority}",
                          f"from {r.ip} lookup {r.table}", got)
            yield from _routes(srv.name, r.nic, r.routes, routes)


def _address(device: str, nic: str, want: str, addrs: dict[str, list[str]] | None) -> Iterable[CheckResult]:
    if addrs is None:
        yield na("host-routing", device, f"{nic} address", "`ip -j -4 addr show` not readable", want)
        return
    yield compare("host-routing", device, f"{nic} address", want, ", ".join(addrs.get(nic, [])) or "none")


def _routes(device: str, nic: str, want: list[Route], routes: list[dict]) -> Iterable[CheckResult]:
    """Each rendered route in its table (main if none) with its gateway (and metric, when rendered)."""
    for rt in want:
        table = rt.table or 254
        found = [x for x in routes if _table(x) == table and _dst(x) == rt.to
                 and (rt.metric is None or x.get("metric") == rt.metric)]
        name = "main" if table == 254 else str(table)
        metric = f" metric {rt.metric}" if rt.metric is not None else ""
        yield compare("host-routing", device, f"{nic} table {name} {rt.to}{metric}", _hop(rt.via, nic),
                      " | ".join(sorted({_hop(x.get("gateway"), str(x.get("dev", "-"))) for x in found})) or "no route")


def _hop(gateway: str | None, dev: str) -> str:
    """A route's next hop as verify prints it: `via <gateway>`, or `dev <nic> on-link` for a route without one
    (a leaf-subnet rail route: iproute2's JSON has no "gateway" key then)."""
    return f"via {gateway}" if gateway else f"dev {dev} on-link"


def _bond(device: str, bond: HostBond, st: DeviceState, addrs: dict[str, list[str]] | None,
          routes: list[dict]) -> Iterable[CheckResult]:
    """The server side of a bonded network (templates/host/netplan-bond.yaml.j2: `bonds:`, mode 802.3ad)."""
    got = st.interfaces.get(bond.name)
    if got is None:
        yield CheckResult("host-routing", device, bond.name, "LACP bond (802.3ad)", "no such interface", "fail")
        return
    # the kernel's bond mode names (Documentation/networking/bonding: `mode` 4 is 802.3ad), as netplan's
    yield compare("host-routing", device, f"{bond.name} mode", "802.3ad", got.get("bond_mode") or got.get("kind") or "-")
    members = sorted(n for n, i in st.interfaces.items() if i.get("master") == bond.name)
    yield compare("host-routing", device, f"{bond.name} members", ", ".join(sorted(bond.members)),
                  ", ".join(members) or "none")
    state = "up" if got["is_up"] else ("admin down" if not got["is_enabled"] else f"oper {got['oper_status'].lower()}")
    yield compare("host-routing", device, f"{bond.name} state", f"up, mtu {bond.mtu}", f"{state}, mtu {got['mtu']}")
    yield from _address(device, bond.name, bond.address, addrs)
    yield from _routes(device, bond.name, bond.routes, routes)


def _dst(route: dict) -> str:
    """iproute2 JSON's destination as the model writes it: `default` is 0.0.0.0/0, a host route has /32."""
    dst = str(route.get("dst", ""))
    return "0.0.0.0/0" if dst == "default" else dst if "/" in dst else f"{dst}/32"


def _table(route: dict) -> int:
    t = route.get("table", "main")
    return 254 if t == "main" else int(t) if str(t).isdigit() else -1


def check_host_qos(it: Intent, states: States) -> Iterable[CheckResult]:
    """Trust, PFC vector, ToS, ECN (NP/RP on the RoCE priority) and CNP marking as applied on each rail NIC (a
    lossy network's NICs get no RoCE QoS: nothing to check there)."""
    for srv in _servers(it, states):
        st = states[srv.name]
        q = srv.qos
        if not q.lossless:
            yield na("host-qos", srv.name, ", ".join(r.nic for r in srv.rails),
                     f"lossy network {it.network}: no RoCE QoS is rendered for these NICs")
            continue
        pfc_want = [int(x) for x in q.pfc_bitmap.split(",")]
        for r in srv.rails:
            nic = r.nic
            mq = st.out(f"mlnx_qos:{nic}")
            dcb_pfc = st.out(f"dcb_pfc:{nic}")
            if mq is not None:
                got = parsers.parse_mlnx_qos(mq)
                yield compare("host-qos", srv.name, f"{nic} trust", "dscp", got.trust)
                yield compare("host-qos", srv.name, f"{nic} pfc", pfc_want, got.pfc)
            elif dcb_pfc is not None:
                yield compare("host-qos", srv.name, f"{nic} pfc", pfc_want, parsers.parse_dcb_pfc(dcb_pfc))
                yield na("host-qos", srv.name, f"{nic} trust", "no mlnx_qos (dcb apptrust needs iproute2 >= 6.3)", "dscp")
            else:
                why = ("no mlnx_qos, and `dcb pfc show` fails: the NIC has no DCB support "
                       f"({'veth in the lab' if (st.interfaces.get(nic) or {}).get('kind') == 'veth' else 'no ConnectX driver'})")
                yield na("host-qos", srv.name, f"{nic} trust/pfc", why, f"trust dscp, pfc {q.pfc_bitmap}")
            tos = st.out(f"tos:{nic}")
            if tos is None:
                yield na("host-qos", srv.name, f"{nic} tos", "no RDMA device (/sys/class/infiniband/<dev> missing: no ConnectX NIC)",
                         str(q.host_tos))
            else:
                yield compare("host-qos", srv.name, f"{nic} tos", str(q.host_tos), _first_int(tos))
            ecn = st.out(f"ecn:{nic}")
            if ecn is None:
                yield na("host-qos", srv.name, f"{nic} ecn/cnp", "no /sys/class/net/<nic>/ecn (not a ConnectX netdev)",
                         f"ecn on prio {q.roce_priority}, cnp dscp {q.cnp_dscp} prio {q.cnp_priority}")
                continue
            kv = parsers.parse_sysfs_grep(ecn)
            for side in ("roce_np", "roce_rp"):
                yield compare("host-qos", srv.name, f"{nic} {side} ecn prio {q.roce_priority}", "1",
                              kv.get(f"{side}/enable/{q.roce_priority}"))
            yield compare("host-qos", srv.name, f"{nic} cnp dscp", str(q.cnp_dscp), kv.get("roce_np/cnp_dscp"))
            yield compare("host-qos", srv.name, f"{nic} cnp 802.1p", str(q.cnp_priority), kv.get("roce_np/cnp_802p_prio"))


def _first_int(text: str) -> str:
    for tok in text.replace("=", " ").split():
        if tok.isdigit():
            return tok
    return text.strip()
