"""BGP and addressing rules: unnumbered sessions that pair, unique ids, the RFC 7938 ASN plan, no duplicate IPs."""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from ipaddress import IPv4Network

from netauto.validate.rules import RuleOutput, rule
from netauto.validate.state import ParsedFabric
from netauto.netutil.ip import ipv4_interface as iface
from netauto.platforms.nos import cumulus_path
from netauto.validate.mlag_backup import backup_problems
from netauto.validate.rules._util import FRR, IFACES, end, fabric_links, file_of, peer_sessions


@rule(id="BGP-03", severity="error", description="both ends of every fabric link unnumbered and in BGP (ipv4 unicast)")
def unnumbered_in_bgp(view: ParsedFabric) -> RuleOutput:
    for link in fabric_links(view):
        for dev, port, peer, peer_port in ((link.a_device, link.a_port, link.b_device, link.b_port),
                                           (link.b_device, link.b_port, link.a_device, link.a_port)):
            st, p = end(view, dev, port)
            if st is None or st.bgp is None:
                continue
            to = f"{port} (to {peer} {peer_port})"
            f = file_of(st, "frr", FRR)
            if not st.bgp.has_neighbor(port):
                yield dev, f"{to} is a fabric link but has no BGP neighbour", f
                continue
            nb = st.bgp.effective(port)
            if not nb.interface:
                yield dev, f"{to}: neighbour is not unnumbered (`neighbor {port} interface ...` missing)", f
            if not nb.activated:
                yield dev, f"{to}: neighbour not activated in address-family ipv4 unicast", f
            if nb.shutdown:
                yield dev, f"{to}: neighbour is shut down", f
            if p is not None and p.addresses:
                yield dev, f"{to}: unnumbered fabric port carries IPv4 address {', '.join(p.addresses)}", \
                    file_of(st, "interfaces", IFACES)


DEFAULT = "0.0.0.0/0"


def _upstream_peers(view: ParsedFabric, dev: str) -> set[str]:
    """The intended upstream (site) sessions of a switch: numbered, outside the cabling plan by design."""
    try:
        up = view.intent(dev).bgp.upstream
    except KeyError:
        return set()
    return {p.address for p in up.peers} if up else set()


@rule(id="BGP-04", severity="error", description="every BGP session pairs: both ends configured, remote-as consistent, eBGP")
def sessions_pair(view: ParsedFabric) -> RuleOutput:
    cabled: dict[tuple[str, str], tuple[str, str]] = {}
    for link in fabric_links(view):
        cabled[(link.a_device, link.a_port)] = (link.b_device, link.b_port)
        cabled[(link.b_device, link.b_port)] = (link.a_device, link.a_port)
    cabled.update(peer_sessions(view))
    for dev, st in view.switches.items():
        if st.bgp is None:
            continue
        f = file_of(st, "frr", FRR)
        upstream = _upstream_peers(view, dev)
        for name in st.bgp.neighbors:
            nb = st.bgp.effective(name)
            if name in upstream:
                continue  # a session to the site network, held to its intent by BORDER-01
            if (dev, name) not in cabled:
                yield dev, f"neighbour {name} is not on an enabled fabric link of the cabling plan", f
                continue
            peer, peer_port = cabled[(dev, name)]
            pst = view.switches.get(peer)
            if pst is None or pst.bgp is None:
                continue
            if not pst.bgp.has_neighbor(peer_port):
                yield dev, f"neighbour {name}: {peer} has no neighbour on {peer_port}, the session never comes up", f
                continue
            ras = nb.remote_as
            if ras is None:
                yield dev, f"neighbour {name}: no remote-as (neither on the neighbour nor its peer-group)", f
            elif ras == "internal" or (ras == "external" and st.bgp.asn == pst.bgp.asn):
                yield dev, f"neighbour {name}: {dev} and {peer} are both in AS {st.bgp.asn}; the fabric is eBGP", f
            elif ras.isdigit() and int(ras) != pst.bgp.asn:
                yield dev, f"neighbour {name}: remote-as {ras} but {peer} is AS {pst.bgp.asn}", f


@rule(id="BGP-01", severity="error", description="unique router-ids and loopbacks; router-id equals the loopback")
def unique_router_ids(view: ParsedFabric) -> RuleOutput:
    rids: dict[str, list[str]] = defaultdict(list)
    los: dict[str, list[str]] = defaultdict(list)
    for dev, st in view.switches.items():
        lo = [str(i.ip) for i in map(iface, st.loopbacks) if i]
        for ip in lo:
            los[ip].append(dev)
        if st.bgp is None:
            continue
        if st.bgp.router_id:
            rids[st.bgp.router_id].append(dev)
            if lo and st.bgp.router_id not in lo:
                yield dev, f"router-id {st.bgp.router_id} is not the loopback {', '.join(lo)}", file_of(st, "frr", FRR)
        else:
            yield dev, "no bgp router-id", file_of(st, "frr", FRR)
    for rid, devs in rids.items():
        if len(devs) > 1:
            for dev in devs:
                yield dev, f"router-id {rid} also used by {', '.join(d for d in devs if d != dev)}", FRR
    for ip, devs in los.items():
        if len(devs) > 1:
            for dev in devs:
                yield dev, f"loopback {ip} also used by {', '.join(d for d in devs if d != dev)}", IFACES


@rule(id="BGP-02", severity="error", description="RFC 7938 ASN plan (leaves unique, spines per pod, super-spines one) or multipath-relax everywhere")
def asn_plan(view: ParsedFabric) -> RuleOutput:
    asn_of = {d: st.bgp.asn for d, st in view.switches.items() if st.bgp and st.bgp.asn is not None}
    by_role: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    pod_asns: dict[int, set[int]] = defaultdict(set)
    for sw in view.model.switches:
        if sw.name in asn_of:
            by_role[sw.role][asn_of[sw.name]].append(sw.name)
            if sw.role == "spine":
                pod_asns[sw.pod].add(asn_of[sw.name])
    problems: list[tuple[str, str]] = []
    for asn, devs in by_role["leaf"].items():
        if len(devs) > 1:
            problems += [(d, f"leaf AS {asn} shared with {', '.join(x for x in devs if x != d)} (leaves need unique ASNs)") for d in devs]
    for pod, asns in pod_asns.items():
        if len(asns) > 1:
            for asn in sorted(asns):
                problems += [(d, f"spines of pod {pod} use several ASNs ({', '.join(map(str, sorted(asns)))})")
                             for d in by_role["spine"][asn] if view.intent(d).pod == pod][:1]
    for asn, devs in by_role["spine"].items():
        pods = {view.intent(d).pod for d in devs}
        if len(pods) > 1:
            problems.append((devs[0], f"spine AS {asn} shared by pods {', '.join(map(str, sorted(pods)))}"))
    if len(by_role["super_spine"]) > 1:
        problems.append((next(iter(by_role["super_spine"].values()))[0],
                         f"super-spines use several ASNs ({', '.join(map(str, sorted(by_role['super_spine'])))})"))
    roles = [set(by_role[r]) for r in ("leaf", "spine", "super_spine")]
    for i in range(3):
        for j in range(i + 1, 3):
            for asn in roles[i] & roles[j]:
                problems.append((by_role[("leaf", "spine", "super_spine")[i]][asn][0], f"AS {asn} used in two tiers"))
    if not problems:
        return
    no_relax = [d for d, st in view.switches.items() if st.bgp and not st.bgp.multipath_relax]
    if not no_relax:
        return
    for dev, msg in problems:
        yield dev, f"{msg}; without `bgp bestpath as-path multipath-relax` on every switch (missing on {len(no_relax)}, e.g. {no_relax[0]}) ECMP breaks", FRR


@rule(id="IP-01", severity="error", description="no duplicate IP address and no overlapping link subnets anywhere")
def no_duplicate_ip(view: ParsedFabric) -> RuleOutput:
    owners: dict[str, list[str]] = defaultdict(list)
    subnets: list[tuple[IPv4Network, str]] = []
    for dev, st in view.switches.items():
        for name, port in st.ports.items():
            for a in port.addresses:
                i = iface(a)
                if i:
                    owners[str(i.ip)].append(f"{dev} {name}")
                    if i.network.prefixlen < 32:
                        subnets.append((i.network, f"{dev} {name}"))
        for name, addrs in list(st.svis.items()) + [("lo", st.loopbacks)]:
            for a in addrs:
                i = iface(a)
                if i:
                    owners[str(i.ip)].append(f"{dev} {name}")
                    if name != "lo" and i.network.prefixlen < 32:
                        subnets.append((i.network, f"{dev} {name}"))
    for dev, srv in view.servers.items():
        for nic in srv.nics.values():
            for a in nic.addresses:
                i = iface(a)
                if i:
                    owners[str(i.ip)].append(f"{dev} {nic.name}")
    for ip, where in owners.items():
        if len(where) == 2 and _mlag_anycast(view, where[0], where[1]):
            continue  # SONiC MCLAG: the pair's static anycast gateway is the same address on both SVIs
        if len(where) > 1:
            for w in where:
                dev = w.split()[0]
                yield dev, f"{ip} on {w.split()[1]} is also on {', '.join(x for x in where if x != w)}"
    subnets.sort(key=lambda t: (int(t[0].network_address), -t[0].prefixlen))
    for (n1, w1), (n2, w2) in zip(subnets, subnets[1:]):
        if n1.overlaps(n2) and w1.split()[0] != w2.split()[0] and not _mlag_shared(view, w1, w2, n1, n2):
            yield w2.split()[0], f"subnet {n2} on {w2.split()[1]} overlaps {n1} on {w1}"


def _mlag_anycast(view: ParsedFabric, w1: str, w2: str) -> bool:
    (d1, i1), (d2, i2) = w1.split()[:2], w2.split()[:2]
    if d1 not in view.switches or d2 not in view.switches:
        return False
    return (view.intent(d1).access_peer == d2 and i1 == i2
            and i1 in view.switches[d1].svis and i2 in view.switches[d2].svis)


def _mlag_shared(view: ParsedFabric, w1: str, w2: str, n1: IPv4Network, n2: IPv4Network) -> bool:
    """The two switches of an access pair (MLAG or EVPN-MH) carry the same VLAN subnet on their SVIs by design."""
    (d1, i1), (d2, i2) = w1.split()[:2], w2.split()[:2]
    return (n1 == n2 and view.intent(d1).access_peer == d2 and i1 == i2
            and i1 in view.switches[d1].svis and i2 in view.switches[d2].svis)


@lru_cache(maxsize=4096)
def _outside(prefix: str, pools: tuple[str, ...]) -> bool:
    """True when `prefix` is not inside any of the pools (or is no prefix at all)."""
    try:
        net = IPv4Network(prefix, strict=False)
    except ValueError:
        return True
    return not any(net.subnet_of(IPv4Network(pool)) for pool in pools)


@rule(id="BGP-07", severity="error",
      description="every fabric session filters inbound to the fabric's own prefixes and caps them (maximum-prefix)")
def fabric_inbound_limits(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        if st.bgp is None:
            continue
        accept = view.intent(dev).bgp.accept_prefixes
        # the frontend access switches also take the default route (exact) from the aggregation (model/border.py);
        # it is no pool: `0.0.0.0/0 le 32` or a default route on any other switch is still outside
        default_ok = any(r.prefix == DEFAULT and r.le is None for r in accept)
        pools = tuple(r.prefix for r in accept if r.prefix != DEFAULT)
        f = file_of(st, "frr", FRR)
        verdict: dict[str, str | None] = {}  # prefix-list -> problem (each list checked once per device)
        upstream = _upstream_peers(view, dev)
        for name in sorted(st.bgp.neighbors):
            if name in upstream:
                continue  # filtered to the inventory's accept list, checked by BORDER-01
            nb = st.bgp.effective(name)
            where = f"neighbour {name}" + (f" (peer-group {nb.peer_group})" if nb.peer_group else "")
            plist = nb.prefix_list_in
            if not plist:
                yield dev, f"{where}: no inbound prefix-list (accepts any prefix a peer leaks)", f
            else:
                if plist not in verdict:
                    entries = st.bgp.prefix_lists.get(plist)
                    wide = [e.prefix for e in entries or () if e.action == "permit" and pools and _outside(e.prefix, pools)
                            and not (default_ok and e.prefix == DEFAULT and e.le is None and e.ge is None)]
                    verdict[plist] = (f"inbound prefix-list {plist} is not defined" if not entries else
                                      f"inbound prefix-list {plist} permits {', '.join(wide)}, outside the fabric's "
                                      "loopback and host pools" if wide else None)
                if verdict[plist]:
                    yield dev, f"{where}: {verdict[plist]}", f
            if not nb.maximum_prefix:
                yield dev, f"{where}: no inbound maximum-prefix", f


@rule(id="BGP-08", severity="warning",
      description="BGP startup protection: a rebooted switch waits for FIB install (suppress-fib-pending) or peers (update-delay)")
def startup_protection(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        if st.bgp is None or st.bgp.asn is None:
            continue
        if not st.bgp.suppress_fib_pending and not st.bgp.update_delay:
            yield dev, ("no `bgp suppress-fib-pending` and no `update-delay`: after a reboot the switch advertises "
                        "routes before its ASIC is programmed"), file_of(st, "frr", FRR)


@rule(id="MLAG-01", severity="error",
      description="both switches of an MLAG pair peer over the peerlink (unnumbered, activated), or an isolated one blackholes")
def mlag_peer_session(view: ParsedFabric) -> RuleOutput:
    """Cumulus MLAG page, "MLAG and Peer Link Peering": without a routed adjacency across peerlink.4094, egress
    traffic that hashes to the switch whose uplinks are down is blackholed (the VRR/anycast gateway answers on
    both switches, the hosts hash flows to both legs)."""
    for (dev, port), (peer, _peer_port) in sorted(peer_sessions(view).items()):
        st = view.switches.get(dev)
        if st is None or st.bgp is None or st.bgp.asn is None:
            continue
        f = file_of(st, "frr", FRR)
        if not st.bgp.has_neighbor(port):
            yield dev, (f"no BGP neighbour on {port} to its MLAG peer {peer}: with every uplink down, the half of the "
                        "bonds' traffic the hosts send to this switch is blackholed"), f
            continue
        nb = st.bgp.effective(port)
        if not nb.interface:
            yield dev, f"neighbour {port} (MLAG peer {peer}) is not unnumbered (`neighbor {port} interface ...`)", f
        if not nb.activated or nb.shutdown:
            yield dev, f"neighbour {port} (MLAG peer {peer}) is {'shut down' if nb.shutdown else 'not activated in ipv4 unicast'}", f


@rule(id="MLAG-02", severity="error",
      description="an MLAG pair's backup IP is the peer's eth0 (mgmt VRF), never reachable only over the peerlink")
def mlag_backup_off_peerlink(view: ParsedFabric) -> RuleOutput:
    """CL MLAG page: the backup link must not depend on the peerlink, or a peerlink failure makes both switches
    primary (split brain). The OOB aggregation pair is checked with the OOB files (netauto.validate.oob)."""
    for sw in view.model.switches:
        if sw.mlag is None or sw.name not in view.nvue_raw or sw.mlag.peer not in view.nvue_raw:
            continue
        for msg in backup_problems(view.nvue_raw[sw.name], sw.mlag.peer, view.nvue_raw[sw.mlag.peer]):
            yield sw.name, msg, cumulus_path("nvue")
