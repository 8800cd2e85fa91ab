"""Host routing rules (netplan, sysctl)."""

from __future__ import annotations

from ipaddress import IPv4Address

from netauto.validate.rules import RuleOutput, rule
from netauto.validate.state import ParsedFabric
from netauto.netutil.ip import ip_of
from netauto.netutil.ip import ipv4_interface as iface

NETPLAN = "etc/netplan/60-rails.yaml"
SYSCTL = "etc/sysctl.d/90-gpu-rails.conf"


@rule(id="HOST-01", severity="error", description="unique main-table prefix per rail; a `from <nic-ip>` rule per NIC into its table")
def host_main_table(view: ParsedFabric) -> RuleOutput:
    for dev, srv in view.servers.items():
        seen: dict[str, str] = {}
        for nic in srv.nics.values():
            for r in nic.routes:
                if r.get("table") in (None, 254, "main"):
                    # the kernel keys a route by prefix and metric: one default per NIC at different
                    # metrics (frontend failover) is two routes, the same prefix at one metric a clash
                    to = str(r.get("to")) + (f" metric {r['metric']}" if r.get("metric") is not None else "")
                    if to in seen:
                        yield dev, f"{nic.name} and {seen[to]} both install {to} in the main table", NETPLAN
                    seen[to] = nic.name
            if nic.bond or nic.members:
                continue  # a bond (one uplink, its members carry no address) needs no per-NIC policy routing
            ips = {str(i.ip) for a in nic.addresses if (i := iface(a))}
            rules = [p for p in nic.policies if ip_of(str(p.get("from", ""))) in ips]
            if not rules:
                yield dev, f"{nic.name}: no `from {'/'.join(ips) or '<ip>'}/32` routing-policy rule", NETPLAN
            for p in rules:
                if not any(r.get("table") == p.get("table") for r in nic.routes):
                    yield dev, f"{nic.name}: rule from {p.get('from')} points to table {p.get('table')}, which has no route", NETPLAN


@rule(id="HOST-02", severity="error", description="routing tables 1..252 and unique per NIC; rule priorities unique; `via` inside the NIC's subnet")
def host_tables(view: ParsedFabric) -> RuleOutput:
    for dev, srv in view.servers.items():
        owner: dict[int, str] = {}
        prios: dict[object, str] = {}
        for nic in srv.nics.values():
            tables = {r.get("table") for r in nic.routes if r.get("table") is not None}
            tables |= {p.get("table") for p in nic.policies if p.get("table") is not None}
            for t in tables:
                if not isinstance(t, int) or not 1 <= t <= 252:
                    yield dev, f"{nic.name}: routing table {t} outside 1..252", NETPLAN
                elif t in owner and owner[t] != nic.name:
                    yield dev, f"{nic.name}: routing table {t} also used by {owner[t]}", NETPLAN
                else:
                    owner[t] = nic.name
            for p in nic.policies:
                pr = p.get("priority")
                if pr is not None and pr in prios:
                    yield dev, f"{nic.name}: rule priority {pr} also used by {prios[pr]}", NETPLAN
                prios[pr] = nic.name
            nets = [i.network for a in nic.addresses if (i := iface(a))]
            for r in nic.routes:
                via = r.get("via")
                if via is None:
                    continue
                try:
                    ip = IPv4Address(str(via))
                except ValueError:
                    yield dev, f"{nic.name}: via {via} is not an IPv4 address", NETPLAN
                    continue
                if not any(ip in n for n in nets):
                    yield dev, f"{nic.name}: route to {r.get('to')} via {via} is outside the NIC's subnet(s) {', '.join(map(str, nets))}", NETPLAN


@rule(id="HOST-03", severity="error", description="multi-rail sysctls: arp_ignore 1|2, arp_announce 2, rp_filter 0|2 (max of all and the NIC)")
def host_sysctl(view: ParsedFabric) -> RuleOutput:
    for dev, srv in view.servers.items():
        s = srv.sysctl

        def val(nic: str, key: str) -> int:
            vals = [s.get(f"net.ipv4.conf.{scope}.{key}") for scope in ("all", nic)]  # noqa: B023 - called in this iteration only
            return max(int(v) for v in vals if v is not None and v.isdigit()) if any(v and v.isdigit() for v in vals) else -1

        for nic in srv.nics:
            if val(nic, "arp_ignore") not in (1, 2):
                yield dev, f"{nic}: arp_ignore {val(nic, 'arp_ignore')} (need 1 or 2)", SYSCTL
            if val(nic, "arp_announce") != 2:
                yield dev, f"{nic}: arp_announce {val(nic, 'arp_announce')} (need 2)", SYSCTL
            if val(nic, "rp_filter") not in (0, 2):
                yield dev, f"{nic}: rp_filter {val(nic, 'rp_filter')} (strict mode drops multi-rail traffic; need 0 or 2)", SYSCTL
