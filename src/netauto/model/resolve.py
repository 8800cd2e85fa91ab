"""Expand the source of truth into the resolved fabric model, once, deterministically.

Order of everything (devices, ports, neighbours, links) follows the numbering of the topology, never
dict or set iteration of unordered data, so the same inventory always yields byte-identical output.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from ipaddress import IPv4Network

from netauto.errors import InventoryError, NetautoError
from netauto.inventory.loader import LoadedInventory
from netauto.inventory.names import is_hostname
from netauto.inventory.schema import ASN_MAX, SPEEDS_MBPS, Inventory, RailNic, RolePorts, ServerProfile
from netauto.model import ipam, limits
from netauto.model.ports import PortSlot, cages_used, slot
from netauto.netutil.interface import port_sort_key
from netauto.platforms import hardware as hw
from netauto.platforms import nics as nic_facts
from netauto.model.types import (
    Bgp,
    BgpNeighbor,
    EtsClass,
    FabricModel,
    FirmwareSetting,
    Interface,
    Link,
    Nccl,
    PeerGroup,
    PrefixRule,
    Qos,
    Rail,
    Route,
    Server,
    Svi,
    Switch,
)

PEER_GROUP = {"leaf": "LEAF", "spine": "SPINE", "super_spine": "SUPERSPINE"}
MGMT_FIRST_HOST = 10  # .1-.9 stay free for gateways and jump hosts
RAIL_VLAN = 100


@dataclass(frozen=True, slots=True)
class _Counts:
    pods: int
    sus: int
    rails: int
    leaves: int
    spines: int
    super_spines: int
    servers_per_su: int
    three_tier: bool

    @classmethod
    def of(cls, inv: Inventory) -> "_Counts":
        t = inv.topology
        sus = t.pods * t.sus_per_pod
        return cls(
            pods=t.pods,
            sus=sus,
            rails=t.rails,
            leaves=sus * t.rails,
            spines=t.pods * t.spines_per_pod,
            super_spines=t.spines_per_pod * t.super_spines_per_plane,
            servers_per_su=t.servers_per_su,
            three_tier=t.super_spines_per_plane > 0,
        )


class _Resolver:
    def __init__(self, loaded: LoadedInventory) -> None:
        self.loaded = loaded
        self.inv = loaded.inventory
        self.n = _Counts.of(self.inv)
        self.err_at = loaded.where
        self.breakouts: dict[tuple[str, str], int] = {}

    # ---------------------------------------------------------------- checks
    def check_size(self, allow_huge: bool) -> None:
        n = self.n
        over = limits.too_big(n.leaves + n.spines + n.super_spines, n.sus * n.servers_per_su)
        if over and not allow_huge:
            raise InventoryError(
                f"this topology has {over}: far beyond any real cluster, it would render for minutes in GiBs",
                **self.err_at("topology"),
                hint="check pods, sus_per_pod, servers_per_su and rails for a typo; if you mean it, run "
                     f"`netauto --allow-huge ...` or set {limits.ALLOW_HUGE_ENV}=1",
            )

    def check(self) -> None:
        self._check_hardware()
        self._check_servers()
        self._check_pools()
        self._check_asns()
        self._check_port_ranges()
        self._check_features()

    def _check_servers(self) -> None:
        s = self.inv.servers
        self.profiles = self._server_profiles()
        if s.table_base + self.n.rails > 252:
            raise InventoryError(
                f"routing tables {s.table_base + 1}..{s.table_base + self.n.rails} exceed 252 (253-255 are the kernel's)",
                **self.err_at("servers", "table_base"), hint="lower table_base",
            )

    def _server_profiles(self) -> dict[str, ServerProfile]:
        """The server models of the fabric. The older form (one NIC list) becomes the profile `default`."""
        s, rails = self.inv.servers, self.n.rails
        if not s.profiles:
            nics = s.nics if s.nics is not None else [f"rail{i}" for i in range(rails)]
            rdma = s.rdma_devices if s.rdma_devices is not None else [f"mlx5_{i}" for i in range(rails)]
            for key, vals in (("nics", nics), ("rdma_devices", rdma), ("pci", s.pci)):
                if vals is not None and len(vals) != rails:
                    raise InventoryError(
                        f"lists {len(vals)} entries but topology.rails is {rails}",
                        **self.err_at("servers", key), hint="give exactly one entry per rail",
                    )
            return {"default": ServerProfile(nics=[
                RailNic(rail=i, name=nics[i], rdma=rdma[i], pci=s.pci[i] if s.pci else None) for i in range(rails)])}
        for pname, prof in s.profiles.items():
            out = sorted({n.rail for n in prof.nics} | set(prof.absent_rails))
            beyond = [r for r in out if r >= rails]
            if beyond:
                raise InventoryError(f"rail(s) {beyond} do not exist: topology.rails is {rails} (rails count from 0)",
                                     **self.err_at("servers", "profiles", pname, "nics"), hint="remove them")
            missing = [r for r in range(rails) if r not in out]
            if missing:
                raise InventoryError(
                    f"profile {pname!r} has no NIC for rail(s) {missing} of the {rails}-rail fabric",
                    **self.err_at("servers", "profiles", pname, "nics"),
                    hint=f"add the NICs, or say the server model lacks them: absent_rails: {missing}",
                )
            if not prof.nics:
                raise InventoryError("a profile needs at least one rail NIC", **self.err_at("servers", "profiles", pname),
                                     hint="list its rail NICs under nics")
        for su in s.su_profiles:
            if not 1 <= su <= self.n.sus:
                raise InventoryError(f"no SU {su} in this fabric (SUs 1..{self.n.sus})",
                                     **self.err_at("servers", "su_profiles", su), hint="use an existing SU number")
        return dict(s.profiles)

    def _server_profile(self, name: str, su: int) -> tuple[str, ServerProfile]:
        s = self.inv.servers
        host = s.hosts.get(name)
        pname = (host.profile if host and host.profile else None) or s.su_profiles.get(su) or s.profile
        if pname is None:
            if len(self.profiles) != 1:
                raise InventoryError(f"server {name} (SU {su}) has no profile", **self.err_at("servers"),
                                     hint="set servers.profile, su_profiles or hosts.<name>.profile")
            pname = next(iter(self.profiles))
        return pname, self.profiles[pname]

    def _check_hosts(self) -> None:
        s = self.inv.servers
        servers = {n for n, role in self.all_names.items() if role == "server"}
        for name in s.hosts:
            if name not in servers:
                close = difflib.get_close_matches(str(name), sorted(servers), n=1, cutoff=0.8)
                raise InventoryError(f"no such server {name!r} in this fabric", **self.err_at("servers", "hosts", name),
                                     hint=f"did you mean {close[0]!r}?" if close else "use a server name from `netauto show model`")

    def _check_pools(self) -> None:
        a = self.inv.addressing
        pools: dict[tuple[str, ...], IPv4Network] = {
            ("addressing", "loopbacks", "leaf"): ipam.net(a.loopbacks.leaf),
            ("addressing", "loopbacks", "spine"): ipam.net(a.loopbacks.spine),
            ("addressing", "host_links", "pool"): ipam.net(a.host_links.pool),
            ("addressing", "management", "switch_pool"): ipam.net(a.management.switch_pool),
            ("addressing", "management", "server_pool"): ipam.net(a.management.server_pool),
        }
        if self.n.three_tier:
            pools[("addressing", "loopbacks", "super_spine")] = ipam.net(a.loopbacks.super_spine)
        clash = ipam.first_overlap({".".join(k): v for k, v in pools.items()})
        if clash:
            first, second = clash
            raise InventoryError(
                f"overlaps {first} ({pools[tuple(first.split('.'))]})",
                **self.err_at(*second.split(".")), hint="give every pool its own address range",
            )
        need = {
            ("addressing", "loopbacks", "leaf"): self.n.leaves,
            ("addressing", "loopbacks", "spine"): self.n.spines,
            ("addressing", "loopbacks", "super_spine"): self.n.super_spines,
            ("addressing", "management", "switch_pool"): MGMT_FIRST_HOST
            + self.n.leaves + self.n.spines + self.n.super_spines,
            ("addressing", "management", "server_pool"): MGMT_FIRST_HOST + self.n.sus * self.n.servers_per_su,
        }
        for key, count in need.items():
            if key not in pools:
                continue
            usable = pools[key].num_addresses - 2 if pools[key].prefixlen < 31 else pools[key].num_addresses
            if count > usable:
                raise InventoryError(
                    f"pool {pools[key]} is too small: the fabric needs {count} addresses, it has {usable}",
                    **self.err_at(*key), hint="use a shorter prefix",
                )
        hl = a.host_links
        host_pool = pools[("addressing", "host_links", "pool")]
        if ipam.subnet_count(host_pool, hl.rail_prefix_len) < self.n.rails:
            raise InventoryError(
                f"pool {host_pool} holds {ipam.subnet_count(host_pool, hl.rail_prefix_len)} /{hl.rail_prefix_len} "
                f"rail supernets, the fabric has {self.n.rails} rails",
                **self.err_at("addressing", "host_links", "pool"), hint="use a shorter prefix or a longer rail_prefix_len",
            )
        if ipam.subnet_count(ipam.nth_subnet(host_pool, hl.rail_prefix_len, 0), hl.leaf_prefix_len) < self.n.sus:
            raise InventoryError(
                f"a /{hl.rail_prefix_len} rail supernet holds fewer /{hl.leaf_prefix_len} leaf blocks than the "
                f"{self.n.sus} scalable units",
                **self.err_at("addressing", "host_links", "leaf_prefix_len"), hint="use a longer leaf_prefix_len or a shorter rail_prefix_len",
            )
        block = 1 << (32 - hl.leaf_prefix_len)
        per_leaf = 2 * self.n.servers_per_su if hl.mode == "p2p" else self.n.servers_per_su + 3
        if per_leaf > block:
            raise InventoryError(
                f"a /{hl.leaf_prefix_len} leaf block has {block} addresses, {hl.mode} mode needs {per_leaf} "
                f"for {self.n.servers_per_su} servers",
                **self.err_at("addressing", "host_links", "leaf_prefix_len"), hint="use a shorter leaf_prefix_len",
            )

    def _check_asns(self) -> None:
        asns = self.inv.asns
        ranges = {
            "leaf_base": (asns.leaf_base, asns.leaf_base + self.n.leaves - 1),
            "spine_base": (asns.spine_base, asns.spine_base + self.n.pods - 1),
        }
        if self.n.three_tier:
            ranges["super_spine"] = (asns.super_spine, asns.super_spine)
        for key, (lo, hi) in ranges.items():
            if hi > ASN_MAX or lo <= 23456 <= hi:
                raise InventoryError(
                    f"range {lo}..{hi} leaves the valid ASN space (1..{ASN_MAX}, 23456 excluded)",
                    **self.err_at("asns", key), hint="move the base",
                )
        keys = list(ranges)
        for i, a in enumerate(keys):
            for b in keys[i + 1 :]:
                (alo, ahi), (blo, bhi) = ranges[a], ranges[b]
                if alo <= bhi and blo <= ahi:
                    raise InventoryError(
                        f"ASN range {blo}..{bhi} overlaps asns.{a} range {alo}..{ahi}",
                        **self.err_at("asns", b), hint="RFC 7938: leaves unique, spines per pod, super-spines apart",
                    )

    def _port_demand(self) -> dict[str, tuple[int, int]]:
        t = self.inv.topology
        return {
            "leaf": (self.n.servers_per_su, t.spines_per_pod * t.leaf_spine_links),
            "spine": (
                t.sus_per_pod * self.n.rails * t.leaf_spine_links,
                t.super_spines_per_plane * t.spine_super_spine_links if self.n.three_tier else 0,
            ),
            "super_spine": (self.n.pods * t.spine_super_spine_links if self.n.three_tier else 0, 0),
        }

    def _check_hardware(self) -> None:
        """The switch model of each tier (`fabric.switch_hardware`: one name, or one per tier)."""
        spec = self.inv.fabric.switch_hardware
        models = {r: spec if isinstance(spec, str) else getattr(spec, r) for r in ("leaf", "spine", "super_spine")}
        self.hw_roles: dict[str, hw.Hardware] = {}
        for role, model in models.items():
            if model not in hw.hardware_models():
                where = ("fabric", "switch_hardware") if isinstance(spec, str) else ("fabric", "switch_hardware", role)
                raise InventoryError(f"unknown switch hardware {model!r} (known: {', '.join(hw.hardware_models())})",
                                     **self.err_at(*where),
                                     hint="use a known model or add src/netauto/platforms/data/hardware/<model>.yaml")
            self.hw_roles[role] = hw.load_hardware(model)

    def hw_for(self, role: str) -> hw.Hardware:
        return self.hw_roles[role]

    def _group_speed(self, role: str, group: str) -> str:
        return self.inv.fabric.host_link_speed if (role, group) == ("leaf", "downlinks") else self.inv.fabric.fabric_link_speed

    def _breakout(self, role: str, group: str) -> int:
        """How the cages of a port group are split: derived from the link speed and the hardware's lane rate."""
        key = (role, group)
        if key in self.breakouts:
            return self.breakouts[key]
        pr = getattr(getattr(self.inv.ports, role), group)
        hw_ = self.hw_for(role)
        speed = self._group_speed(role, group)
        lane = SPEEDS_MBPS[pr.lane_speed] if pr.lane_speed else None
        try:
            ways = hw_.breakout_for(pr.first, SPEEDS_MBPS[speed], lane, where=f"ports.{role}.{group}")
        except NetautoError as exc:
            raise InventoryError(str(exc).split(": ", 1)[1], **self.err_at("ports", role, group),
                                 hint="change the link speed, lane_speed or the first cage") from None
        if pr.breakout is not None and pr.breakout != ways:
            lanes = len(hw_.cages[pr.first].lanes)
            raise InventoryError(
                f"breakout {pr.breakout} does not fit {speed} links on {hw_.model} cages "
                f"({lanes} lanes of {(lane or hw_.lane_speed_mbps) // 1000}G): a {speed} port takes "
                f"{lanes // ways} lanes, so the cage is a {ways}x breakout",
                **self.err_at("ports", role, group, "breakout"),
                hint=f"write breakout: {ways} (or leave it out), or state the lane rate with lane_speed")
        self.breakouts[key] = ways
        return ways

    def _check_port_ranges(self) -> None:
        for role, (down, up) in self._port_demand().items():
            rp: RolePorts = getattr(self.inv.ports, role)
            hw_ = self.hw_for(role)
            down_cages = cages_used(rp.downlinks.first, self._breakout(role, "downlinks"), down) if down else range(0)
            up_cages = cages_used(rp.uplinks.first, self._breakout(role, "uplinks"), up) if up else range(0)
            for kind, cages in (("downlinks", down_cages), ("uplinks", up_cages)):
                odd = [c for c in cages if c not in hw_.cages
                       or len(hw_.cages[c].lanes) != len(hw_.cages[cages[0]].lanes)]
                if odd:
                    last = max(n for n, c in hw_.cages.items() if len(c.lanes) == len(hw_.cages[cages[0]].lanes)) \
                        if cages[0] in hw_.cages else max(hw_.cages)
                    raise InventoryError(
                        f"{role} {kind} need cages {cages[0]}-{cages[-1]} but the {hw_.model} has "
                        f"{len(hw_.cages[cages[0]].lanes) if cages[0] in hw_.cages else 8}-lane cages 1-{last}",
                        **self.err_at("ports", role, kind, "first"),
                        hint="lower the first cage, or fewer links per switch")
                if len(cages) and cages[-1] > rp.cages:
                    raise InventoryError(
                        f"{role} {kind} need cages {cages[0]}-{cages[-1]} but the switch has {rp.cages}",
                        **self.err_at("ports", role, kind, "first"), hint=f"lower the first cage or raise ports.{role}.cages",
                    )
            if len(down_cages) and len(up_cages) and set(down_cages) & set(up_cages):
                raise InventoryError(
                    f"a port used twice: {role} uplinks use cages {up_cages[0]}-{up_cages[-1]}, "
                    f"downlinks use {down_cages[0]}-{down_cages[-1]}",
                    **self.err_at("ports", role, "uplinks", "first"), hint=f"start the uplinks above cage {down_cages[-1]}",
                )

    def _check_features(self) -> None:
        if self.inv.features.adaptive_routing and self.inv.fabric.fabric_link_speed == "800G":
            raise InventoryError(
                "adaptive routing is not supported on 800G links (Spectrum-4: 200G/400G only)",
                **self.err_at("features", "adaptive_routing"), hint="break fabric links out to 400G or disable AR",
            )

    def _check_ar_platforms(self, switches: dict[str, Switch]) -> None:
        # netauto renders adaptive routing for Cumulus only; AR on some switches and off on others
        # collapses NCCL throughput, so a fabric with SONiC switches must run without it
        sonic = sorted(name for name, sw in switches.items() if sw.nos == "sonic")
        if self.inv.features.adaptive_routing and sonic:
            shown = ", ".join(sonic[:3]) + (f" and {len(sonic) - 3} more" if len(sonic) > 3 else "")
            raise InventoryError(
                f"adaptive routing is on but SONiC runs on {shown}, where netauto renders no adaptive routing: "
                "AR would be on for some switches and off for others",
                **self.err_at("features", "adaptive_routing"),
                hint="set features.adaptive_routing: false for a fabric with SONiC switches",
            )

    # ---------------------------------------------------------------- naming
    def _name(self, role: str, **fields: int) -> str:
        pattern = getattr(self.inv.naming, role)
        try:
            name = pattern.format(**fields)  # the schema accepted only FIELDS with integer formats
        except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
            problem = f"unknown field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise InventoryError(
                f"cannot format {pattern!r}: {problem}", **self.err_at("naming", role),
                hint="use only the fields su, rail, pod, plane, index",
            ) from None
        if not is_hostname(name):
            raise InventoryError(
                f"{pattern!r} produces {name!r}, which is not a hostname (RFC 1123: 1-63 letters, digits or '-', "
                "not starting or ending with '-')", **self.err_at("naming", role),
                hint="start and end the template with a letter, digit or field and keep names short",
            )
        return name

    # ---------------------------------------------------------------- build
    def build(self) -> FabricModel:
        inv, n = self.inv, self.n
        t = inv.topology
        self.leaf_names: dict[tuple[int, int], str] = {}
        self.spine_names: dict[tuple[int, int], str] = {}
        self.super_names: dict[tuple[int, int], str] = {}
        self.server_names: dict[tuple[int, int], str] = {}
        for s in range(1, n.sus + 1):
            pod = (s - 1) // t.sus_per_pod + 1
            for r in range(n.rails):
                g = (s - 1) * n.rails + r + 1
                self.leaf_names[(s, r)] = self._name("leaf", su=s, rail=r, pod=pod, plane=0, index=g)
            for k in range(1, n.servers_per_su + 1):
                self.server_names[(s, k)] = self._name("server", su=s, rail=0, pod=pod, plane=0, index=k)
        for p in range(1, n.pods + 1):
            for i in range(1, t.spines_per_pod + 1):
                self.spine_names[(p, i)] = self._name("spine", su=0, rail=0, pod=p, plane=i, index=i)
        for plane in range(1, t.spines_per_pod + 1 if n.three_tier else 1):
            for j in range(1, t.super_spines_per_plane + 1):
                self.super_names[(plane, j)] = self._name("super_spine", su=0, rail=0, pod=0, plane=plane, index=j)
        self._check_names()
        self._check_hosts()

        self.disabled = self._disabled_ports()
        self.drained = self._drained()
        switches: dict[str, Switch] = {}
        links: list[Link] = []
        self.mgmt_next = 0
        for (plane, j), name in self.super_names.items():
            switches[name] = self._switch(name, "super_spine", pod=0, su=None, rail=None, plane=plane, index=j,
                                          number=(plane - 1) * t.super_spines_per_plane + j)
        for (p, i), name in self.spine_names.items():
            switches[name] = self._switch(name, "spine", pod=p, su=None, rail=None, plane=i if n.three_tier else None,
                                          index=i, number=(p - 1) * t.spines_per_pod + i)
        for (s, r), name in self.leaf_names.items():
            pod = (s - 1) // t.sus_per_pod + 1
            switches[name] = self._switch(name, "leaf", pod=pod, su=s, rail=r, plane=None, index=r,
                                          number=(s - 1) * n.rails + r + 1)
        self._check_ar_platforms(switches)
        links += self._wire_leaf_spine(switches)
        if n.three_tier:
            links += self._wire_spine_super(switches)
        servers, host_links = self._servers(switches)
        links += host_links
        self._check_port_overrides(switches)
        for sw in switches.values():
            sw.bgp.neighbors.sort(key=lambda nb: port_sort_key(nb.interface))
            sw.interfaces.sort(key=lambda i: port_sort_key(i.name))
            sw.bgp.peer_groups = [pg for pg in sw.bgp.peer_groups if any(nb.peer_group == pg.name for nb in sw.bgp.neighbors)]
        hl = inv.addressing.host_links
        host_pool = ipam.net(hl.pool)
        self._fabric_session_limits(switches, host_pool)
        return FabricModel(
            name=inv.fabric.name,
            host_link_mode=hl.mode,
            host_pool=str(host_pool),
            rail_supernets=[str(ipam.nth_subnet(host_pool, hl.rail_prefix_len, r)) for r in range(n.rails)],
            switches=list(switches.values()),
            servers=servers,
            links=links,
        )

    def _fabric_session_limits(self, switches: dict[str, Switch], host_pool: IPv4Network) -> None:
        """What a fabric session may carry: only the fabric's own prefixes (the loopback pools of the roles in use
        and the host pool, any length inside them), and at most `maximum_prefix` of them. The default is what the
        address plan can ever announce (every loopback of the pools in use, plus one block of leaf_prefix_len per
        leaf block of the host pool): it does not change when the fabric grows inside its plan, so adding a
        scalable unit changes no existing leaf's config (`netauto plan`); set fabric.bgp.maximum_prefix to bound
        it tighter."""
        roles = {sw.role for sw in switches.values()}
        pools = [str(_pool(getattr(self.inv.addressing.loopbacks, r))) for r in ("leaf", "spine", "super_spine") if r in roles]
        accept = [PrefixRule(p, 32) for p in pools + [str(host_pool)]]
        hl = self.inv.addressing.host_links
        capacity = sum(_pool(p).num_addresses for p in pools) + 2 ** max(0, hl.leaf_prefix_len - host_pool.prefixlen)
        limit = self.inv.fabric.bgp.maximum_prefix or capacity
        for sw in switches.values():
            sw.bgp.accept_prefixes = list(accept)
            sw.bgp.maximum_prefix = limit

    def _check_names(self) -> None:
        seen: dict[str, str] = {}
        folded: dict[str, str] = {}
        for role, names in (("super_spine", self.super_names), ("spine", self.spine_names),
                            ("leaf", self.leaf_names), ("server", self.server_names)):
            for name in names.values():
                if name.lower() in folded:  # hostnames (DNS, Ansible inventories) ignore case
                    first = folded[name.lower()]
                    also = f"also a {seen[first]}" + (f" named {first!r}" if first != name else "")
                    raise InventoryError(
                        f"produces the duplicate device name {name!r} ({also})",
                        **self.err_at("naming", role), hint="include the fields that make each name unique",
                    )
                seen[name] = role
                folded[name.lower()] = name
        self.all_names = seen
        for dev in self.inv.overrides.devices:
            if dev not in seen:
                close = difflib.get_close_matches(str(dev), list(seen), n=1, cutoff=0.8)
                raise InventoryError(f"no such device {dev!r} in this fabric", **self.err_at("overrides", "devices", dev),
                                     hint=f"did you mean {close[0]!r}?" if close else "use a name from `netauto show model`")

    def _disabled_ports(self) -> set[tuple[str, str]]:
        out = set()
        for i, po in enumerate(self.inv.overrides.ports):
            if po.device not in self.all_names or self.all_names[po.device] == "server":
                raise InventoryError(f"no such switch {po.device!r}", **self.err_at("overrides", "ports", i, "device"),
                                     hint="name a switch from `netauto show model`")
            if po.disabled:
                out.add((po.device, po.port))
        return out

    def _check_port_overrides(self, switches: dict[str, Switch]) -> None:
        for i, po in enumerate(self.inv.overrides.ports):
            names = {iface.name for iface in switches[po.device].interfaces}
            if po.port not in names:
                raise InventoryError(f"{po.device} has no port {po.port!r}", **self.err_at("overrides", "ports", i, "port"),
                                     hint="use a port from `netauto show cabling`")

    def _drained(self) -> set[str]:
        drained = set()
        for i, name in enumerate(self.inv.features.gshut.drain):
            if name not in self.all_names or self.all_names[name] == "server":
                close = difflib.get_close_matches(str(name), [n for n, r in self.all_names.items() if r != "server"], n=1, cutoff=0.8)
                raise InventoryError(f"no such switch {name!r}", **self.err_at("features", "gshut", "drain", i),
                                     hint=f"did you mean {close[0]!r}?" if close else "drain switches by name (see `netauto show model`)")
            drained.add(name)
        drained |= {name for name, o in self.inv.overrides.devices.items() if o.drain}
        return drained

    def _mgmt(self, pool: str, gateway: str | None, number: int, override: str | None) -> tuple[str, str]:
        network = _pool(pool)
        gw = gateway or ipam.ip_str(int(network.network_address) + 1)
        addr = override or ipam.ip_str(int(network.network_address) + MGMT_FIRST_HOST + number)
        return f"{addr}/{network.prefixlen}", gw

    def _switch(self, name: str, role: str, *, pod: int, su: int | None, rail: int | None, plane: int | None,
                index: int, number: int) -> Switch:
        inv = self.inv
        over = inv.overrides.devices.get(name)
        lo_pool = _pool(getattr(inv.addressing.loopbacks, role))
        loopback = ipam.ip_str(int(lo_pool.network_address) + number)
        asn = {"leaf": inv.asns.leaf_base + number - 1, "spine": inv.asns.spine_base + pod - 1,
               "super_spine": inv.asns.super_spine}[role]
        mg = inv.addressing.management
        mgmt, gw = self._mgmt(mg.switch_pool, mg.gateway_switch, self.mgmt_next, over.mgmt_ip if over else None)
        self.mgmt_next += 1
        timers = inv.fabric.bgp.timers
        groups = {"leaf": ["SPINE"], "spine": ["LEAF", "SUPERSPINE"], "super_spine": ["SPINE"]}[role]
        descriptions = {"SPINE": "uplinks to spines" if role == "leaf" else "downlinks to spines",
                        "LEAF": "downlinks to leaves", "SUPERSPINE": "uplinks to super-spines"}
        bgp = Bgp(
            asn=asn, router_id=str(loopback), keepalive=timers.keepalive, holdtime=timers.holdtime,
            connect_retry=timers.connect_retry, maximum_paths=inv.fabric.bgp.maximum_paths,
            multipath_relax=inv.fabric.bgp.multipath_relax, graceful_shutdown=name in self.drained,
            gshut_honour=inv.features.gshut.honour, gshut_prepend=inv.features.gshut.prepend,
            peer_groups=[PeerGroup(g, descriptions[g]) for g in groups], neighbors=[],
            networks=[f"{loopback}/32"], aggregates=[], connected_prefixes=[],
            wait_for_install=inv.fabric.bgp.startup.wait_for_install, update_delay=inv.fabric.bgp.startup.update_delay,
            establish_wait=inv.fabric.bgp.startup.establish_wait,
        )
        nos = over.nos if over and over.nos else inv.fabric.nos.for_role(role)
        return Switch(
            name=name, role=role, nos=nos,
            pod=pod, su=su, rail=rail, plane=plane, index=index, loopback=f"{loopback}/32",
            mgmt_address=mgmt, mgmt_gateway=gw, mgmt_vrf=mg.vrf, ssh_user=mg.switch_user,
            cumulus_release=inv.fabric.cumulus_release, cumulus_config_mode=inv.fabric.cumulus_config_mode,
            mtu=inv.fabric.mtu.switch,
            adaptive_routing=inv.features.adaptive_routing, ar_link_util_threshold=inv.features.ar_link_util_threshold,
            interfaces=[], bgp=bgp, qos=self._qos(), hwsku=self._hwsku(name, role) if nos == "sonic" else None,
            hardware=self.hw_for(role).model,
        )

    def _hwsku(self, name: str, role: str) -> str:
        over = self.inv.overrides.devices.get(name)
        sku = over.hwsku if over and over.hwsku else self.inv.fabric.sonic_hwsku
        where = (self.err_at("overrides", "devices", name, "hwsku") if over and over.hwsku
                 else self.err_at("fabric", "sonic_hwsku"))
        if sku not in hw.hwsku_names():
            raise InventoryError(f"no port map for SONiC HWSKU {sku!r} (known: {', '.join(hw.hwsku_names())})",
                                 **where, hint="use a known HWSKU or add src/netauto/platforms/data/sonic_hwsku/<HWSKU>.yaml")
        data = hw.load_hwsku(sku)
        if data.hardware.model != self.hw_for(role).model:
            raise InventoryError(f"SONiC HWSKU {sku} is for the {data.hardware.model}, the fabric's {role} switches are "
                                 f"{self.hw_for(role).model} (fabric.switch_hardware)", **where,
                                 hint="pick a HWSKU of the same hardware")
        self._check_cable_length(name, data)
        return sku

    def _check_cable_length(self, name: str, sku: hw.HwSku) -> None:
        """SONiC (traditional buffer model) sizes lossless headroom from the SKU's pg_profile_lookup table."""
        cable = self.inv.fabric.cable_length_m
        for speed in sorted({self.inv.fabric.host_link_speed, self.inv.fabric.fabric_link_speed}):
            if sku.lossless_profile(SPEEDS_MBPS[speed], cable) is None:
                lengths = sku.cable_lengths(SPEEDS_MBPS[speed])
                raise InventoryError(
                    f"{name}: cable length {cable} m is longer than any {speed} row of the lossless headroom table "
                    f"of SONiC HWSKU {sku.name} ({', '.join(f'{m} m' for m in lengths) or 'no rows'}): "
                    "PFC would run without headroom", **self.err_at("fabric", "cable_length_m"),
                    hint=f"use at most {lengths[-1]} m" if lengths else "pick a HWSKU with a lossless table")

    def _qos(self) -> Qos:
        q = self.inv.qos
        ets = [EtsClass(tc, "dwrr", w) for tc, w in q.ets.items()] + [EtsClass(q.cnp.priority, "strict", 0)]
        ets.sort(key=lambda e: e.traffic_class)
        default = (q.roce.dscp, q.roce.priority, q.cnp.dscp, q.cnp.priority, q.ets, q.classes,
                   q.ecn.min_threshold, q.ecn.max_threshold, q.ecn.probability) == (
                       26, 3, 48, 6, {0: 50, 3: 50}, {}, 150000, 1500000, 100)
        dscp = {d: d >> 3 for d in range(64)}  # Cumulus `qos roce`: the default DSCP >> 3 map
        dscp[q.roce.dscp] = q.roce.priority
        dscp[q.cnp.dscp] = q.cnp.priority
        for prio, values in q.classes.items():
            for d in values:
                dscp[d] = prio
        own_class = {q.roce.priority, q.cnp.priority} | set(q.ets)
        return Qos(
            dscp_to_priority=dscp, priority_to_tc={p: p if p in own_class else 0 for p in range(8)},
            dscp_changes={d: p for d, p in dscp.items() if p != d >> 3},
            roce_dscp=q.roce.dscp, roce_priority=q.roce.priority, cnp_dscp=q.cnp.dscp, cnp_priority=q.cnp.priority,
            ets=ets, ecn_traffic_classes=sorted(q.ets), ecn_min_threshold=q.ecn.min_threshold,
            ecn_max_threshold=q.ecn.max_threshold, ecn_probability=q.ecn.probability,
            pfc_priorities=[q.roce.priority], pfc_watchdog=q.pfc_watchdog.enabled,
            pfc_watchdog_polling_interval_ms=q.pfc_watchdog.polling_interval_ms,
            pfc_watchdog_robustness=q.pfc_watchdog.robustness, cable_length_m=self.inv.fabric.cable_length_m,
            host_tos=q.host_tos, is_nvidia_default=default,
            pfc_bitmap=",".join("1" if p == q.roce.priority else "0" for p in range(8)),
        )

    def _iface(self, sw: Switch, ps: PortSlot, kind: str, peer: str | None, peer_port: str | None,
               speed: str, description: str) -> Interface:
        name = ps.name(sw.nos)
        fec = None if self.inv.fabric.fec == "default" else self.inv.fabric.fec
        iface = Interface(
            name=name, kind=kind, speed=speed, speed_mbps=SPEEDS_MBPS[speed], mtu=sw.mtu, fec=fec,
            enabled=(sw.name, name) not in self.disabled, peer_device=peer, peer_port=peer_port,
            description=description, adaptive_routing=sw.adaptive_routing and kind == "fabric",
            pfc_watchdog=sw.qos.pfc_watchdog, breakout_parent=ps.parent(sw.nos),
            cage=ps.cage, subport=ps.sub, breakout=ps.breakout,
            lanes=self.hw_for(sw.role).lanes(ps.cage, ps.sub, ps.breakout),
        )
        sw.interfaces.append(iface)
        return iface

    def _fabric_link(self, lower: Switch, lps: PortSlot, upper: Switch, ups: PortSlot, kind: str) -> Link:
        speed = self.inv.fabric.fabric_link_speed
        lname, uname = lps.name(lower.nos), ups.name(upper.nos)
        li = self._iface(lower, lps, "fabric", upper.name, uname, speed, f"to {upper.name} {uname}")
        ui = self._iface(upper, ups, "fabric", lower.name, lname, speed, f"to {lower.name} {lname}")
        enabled = li.enabled and ui.enabled
        # A link is disabled as a whole: a lone live end would keep AR/PFC-WD on a dark port.
        li.enabled = ui.enabled = enabled
        if enabled:
            lower.bgp.neighbors.append(BgpNeighbor(lname, PEER_GROUP[upper.role], upper.name, uname, upper.bgp.asn))
            upper.bgp.neighbors.append(BgpNeighbor(uname, PEER_GROUP[lower.role], lower.name, lname, lower.bgp.asn))
        return Link(lower.name, lname, upper.name, uname, speed, kind, enabled)

    def _wire_leaf_spine(self, switches: dict[str, Switch]) -> list[Link]:
        t, ports = self.inv.topology, self.inv.ports
        links = []
        for (s, r), leaf_name in self.leaf_names.items():
            leaf = switches[leaf_name]
            pod = leaf.pod
            pod_leaf = ((s - 1) % t.sus_per_pod) * self.n.rails + r
            for i in range(1, t.spines_per_pod + 1):
                spine = switches[self.spine_names[(pod, i)]]
                for link in range(t.leaf_spine_links):
                    lps = slot(ports.leaf.uplinks.first, self._breakout("leaf", "uplinks"), (i - 1) * t.leaf_spine_links + link)
                    sps = slot(ports.spine.downlinks.first, self._breakout("spine", "downlinks"),
                               pod_leaf * t.leaf_spine_links + link)
                    links.append(self._fabric_link(leaf, lps, spine, sps, "leaf-spine"))
        return links

    def _wire_spine_super(self, switches: dict[str, Switch]) -> list[Link]:
        t, ports = self.inv.topology, self.inv.ports
        links = []
        for (p, i), spine_name in self.spine_names.items():
            spine = switches[spine_name]
            for j in range(1, t.super_spines_per_plane + 1):
                sup = switches[self.super_names[(i, j)]]
                for link in range(t.spine_super_spine_links):
                    sps = slot(ports.spine.uplinks.first, self._breakout("spine", "uplinks"),
                               (j - 1) * t.spine_super_spine_links + link)
                    ups = slot(ports.super_spine.downlinks.first, self._breakout("super_spine", "downlinks"),
                               (p - 1) * t.spine_super_spine_links + link)
                    links.append(self._fabric_link(spine, sps, sup, ups, "spine-superspine"))
        return links

    def _servers(self, switches: dict[str, Switch]) -> tuple[list[Server], list[Link]]:
        inv = self.inv
        hl = inv.addressing.host_links
        host_pool = ipam.net(hl.pool)
        host_pool_str = str(host_pool)
        mg = inv.addressing.management
        speed = inv.fabric.host_link_speed
        leaf_ports = inv.ports.leaf.downlinks
        p2p = hl.mode == "p2p"
        servers: list[Server] = []
        links: list[Link] = []
        qos = self._qos()
        rail_nets = [ipam.nth_subnet(host_pool, hl.rail_prefix_len, r) for r in range(self.n.rails)]
        for s in range(1, self.n.sus + 1):
            blocks = []  # per rail: (rail supernet, block start as int, block "a.b.c.d/len")
            for r in range(self.n.rails):
                start = ipam.block_start(rail_nets[r], hl.leaf_prefix_len, s - 1)
                block = f"{ipam.ip_str(start)}/{hl.leaf_prefix_len}"
                blocks.append((str(rail_nets[r]), start, block))
                leaf = switches[self.leaf_names[(s, r)]]
                leaf.bgp.connected_prefixes.append(PrefixRule(block, 32))
                if p2p:
                    leaf.bgp.aggregates.append(block)
                else:
                    leaf.svi = Svi(name=f"{'Vlan' if leaf.nos == 'sonic' else 'vlan'}{RAIL_VLAN}", vlan=RAIL_VLAN,
                                   address=f"{ipam.ip_str(start + 1)}/{hl.leaf_prefix_len}", members=[])
            for k in range(1, self.n.servers_per_su + 1):
                name = self.server_names[(s, k)]
                over = inv.overrides.devices.get(name)
                absent = bool(over and over.absent)
                pname, prof = self._server_profile(name, s)
                by_rail = {n.rail: n for n in prof.nics}
                host = inv.servers.hosts.get(name)
                macs = dict(host.macs) if host else {}
                unknown = sorted(set(macs) - {n.name for n in prof.nics})
                if unknown:
                    raise InventoryError(f"{name}: no rail NIC {unknown[0]!r} in profile {pname!r}",
                                         **self.err_at("servers", "hosts", name, "macs", unknown[0]),
                                         hint=f"use the profile's NIC names: {', '.join(n.name for n in prof.nics)}")
                ps = slot(leaf_ports.first, self._breakout("leaf", "downlinks"), k - 1)
                rails: list[Rail] = []
                for r in range(self.n.rails):
                    rail_net, start, block = blocks[r]
                    leaf = switches[self.leaf_names[(s, r)]]
                    spec = by_rail.get(r)
                    if absent or spec is None:
                        why = "absent" if absent else f"no rail {r} NIC in profile {pname}"
                        iface = self._iface(leaf, ps, "host", None, None, speed, f"reserved for {name} ({why})")
                        iface.enabled = False
                        continue
                    nic = spec.name
                    iface = self._iface(leaf, ps, "host", name, nic, speed, f"{name} {nic}")
                    if p2p:
                        gw_int = start + 2 * (k - 1)
                        ip_int, plen = gw_int + 1, 31
                        subnet = f"{ipam.ip_str(gw_int)}/31"
                        iface.address = subnet
                    else:
                        gw_int, ip_int, plen, subnet = start + 1, start + 1 + k, hl.leaf_prefix_len, block
                        iface.access_vlan = RAIL_VLAN
                        if iface.enabled:
                            leaf.svi.members.append(iface.name)
                    gw, ip = ipam.ip_str(gw_int), ipam.ip_str(ip_int)
                    table = inv.servers.table_base + r + 1
                    routes = [Route(to=rail_net, via=gw), Route(to=host_pool_str, via=gw, table=table)]
                    if not p2p:
                        routes.append(Route(to=subnet, via=None, table=table, scope="link"))
                    rails.append(Rail(
                        index=r, nic=nic, rdma_device=spec.rdma, address=f"{ip}/{plen}",
                        ip=ip, gateway=gw, subnet=subnet, leaf=leaf.name, leaf_port=iface.name,
                        mtu=inv.fabric.mtu.host, table=table, rule_priority=inv.servers.rule_priority_base + r + 1,
                        routes=routes, pci=spec.pci, mac=macs.get(nic), kind=spec.kind or prof.nic_kind,
                        gpus=list(spec.gpus),
                    ))
                    links.append(Link(leaf.name, iface.name, name, nic, speed, "server-leaf", iface.enabled))
                if absent:
                    continue
                number = (s - 1) * self.n.servers_per_su + k - 1
                mgmt, gw_m = self._mgmt(mg.server_pool, mg.gateway_server, number, over.mgmt_ip if over else None)
                servers.append(Server(name=name, su=s, index=k, mgmt_address=mgmt, mgmt_gateway=gw_m,
                                      ssh_user=mg.server_user, rails=rails, qos=qos, profile=pname, model=prof.model,
                                      absent_rails=sorted(prof.absent_rails), nccl=self._nccl(rails, prof, qos),
                                      firmware=self._firmware(rails, qos),
                                      adaptive_routing=inv.features.adaptive_routing))
        return servers, links

    def _nccl(self, rails: list[Rail], prof: ServerProfile, qos: Qos) -> Nccl:
        """NCCL settings from the fabric. Sources: NCCL "Environment Variables" doc (NCCL_IB_HCA "=" exact match,
        NCCL_SOCKET_IFNAME, NCCL_IB_TC, NCCL_IB_ADAPTIVE_ROUTING, NCCL_IB_ADDR_FAMILY/RANGE, NCCL_IB_QPS_PER_CONNECTION,
        NCCL_BUFFSIZE default 4 MiB); NVIDIA/nccl src/transport/net_ib: IB_GID_INDEX default -1 (auto), IB_ROCE_VERSION_NUM 2."""
        sites = self.inv.fabric.sites
        qps = buff = None
        if sites.count > 1:
            # long haul: more QPs spread a connection over more ECMP/AR paths; buffers cover the bandwidth-delay
            # product (fibre ~5 us/km one way) so the pipeline does not stall on the round trip
            rtt_s = 2 * sites.max_distance_km * 5e-6
            bdp = int(SPEEDS_MBPS[self.inv.fabric.host_link_speed] * 1e6 * rtt_s / 8)
            buff = max(1 << 22, 1 << max(bdp - 1, 1).bit_length())
            qps = 4
        return Nccl(
            ib_hca="=" + ",".join(f"{r.rdma_device}:1" for r in rails), ib_tc=qos.host_tos, roce_version=2,
            addr_family="AF_INET", addr_range=self.inv.addressing.host_links.pool,
            adaptive_routing=self.inv.features.adaptive_routing,
            socket_ifname=prof.socket_ifname or (rails[0].nic if rails else "lo"),
            qps_per_connection=qps, buffsize=buff, sites=sites.count, distance_km=sites.max_distance_km,
        )

    def _firmware(self, rails: list[Rail], qos: Qos) -> dict[str, list[FirmwareSetting]]:
        out: dict[str, list[FirmwareSetting]] = {}
        for kind in sorted({r.kind for r in rails}):
            params = nic_facts.firmware(kind, roce_priority=qos.roce_priority, cnp_dscp=qos.cnp_dscp,
                                        cnp_priority=qos.cnp_priority, ar=self.inv.features.adaptive_routing)
            out[kind] = [FirmwareSetting(p.name, p.value) for p in params]
        return out


@lru_cache(maxsize=4096)
def _port_key(name: str) -> tuple[int, int, str]:
    digits = "".join(ch if ch.isdigit() else " " for ch in name).split()
    cage = int(digits[0]) if digits else 0
    sub = int(digits[1]) if len(digits) > 1 else -1
    return (cage, sub, name)


@lru_cache(maxsize=64)
def _pool(value: str) -> IPv4Network:
    return ipam.net(value)


def resolve(loaded: LoadedInventory, *, allow_huge: bool | None = None) -> FabricModel:
    """The fabric model; refuses fabrics beyond `limits` unless `allow_huge` (default: NETAUTO_ALLOW_HUGE)."""
    resolver = _Resolver(loaded)
    resolver.check_size(limits.allow_huge_from_env() if allow_huge is None else allow_huge)
    resolver.check()
    return resolver.build()
