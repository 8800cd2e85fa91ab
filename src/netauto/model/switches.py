"""One switch record from its identity: addresses, ASN, BGP defaults, NOS and (SONiC) HWSKU."""

from __future__ import annotations

from ipaddress import IPv4Network

from netauto.errors import InventoryError
from netauto.inventory.schema import SPEEDS_MBPS, Inventory
from netauto.model import addressing
from netauto.model.context import Context
from netauto.model.drain import set_drained
from netauto.model.qos import qos
from netauto.model.topology import SwitchId
from netauto.model.types import Bgp, PeerGroup, PrefixRule, Switch, SwitchTelemetry
from netauto.platforms import hardware as hw

PEER_GROUP = {"leaf": "LEAF", "spine": "SPINE", "super_spine": "SUPERSPINE"}
_GROUPS = {"leaf": ["SPINE"], "spine": ["LEAF", "SUPERSPINE"], "super_spine": ["SPINE"]}


def peer_groups(role: str) -> list[PeerGroup]:
    """The BGP peer groups of a tier, described from its side."""
    descriptions = {"SPINE": "uplinks to spines" if role == "leaf" else "downlinks to spines",
                    "LEAF": "downlinks to leaves", "SUPERSPINE": "uplinks to super-spines"}
    return [PeerGroup(g, descriptions[g]) for g in _GROUPS[role]]


def bgp(inv: Inventory, sw: SwitchId, loopback: str) -> Bgp:
    """The switch's BGP process before wiring adds neighbours and the hosts their prefixes (not drained:
    `set_drained`)."""
    b = inv.fabric.bgp
    return Bgp(
        asn=addressing.switch_asn(inv, sw), router_id=loopback, keepalive=b.timers.keepalive,
        holdtime=b.timers.holdtime, connect_retry=b.timers.connect_retry, maximum_paths=b.maximum_paths,
        multipath_relax=b.multipath_relax, graceful_shutdown=False,
        gshut_honour=inv.features.gshut.honour, gshut_prepend=inv.features.gshut.prepend,
        peer_groups=peer_groups(sw.role), neighbors=[],
        networks=[f"{loopback}/32"], aggregates=[], connected_prefixes=[],
        wait_for_install=b.startup.wait_for_install, update_delay=b.startup.update_delay,
        establish_wait=b.startup.establish_wait,
    )


def switch(ctx: Context, sw: SwitchId, name: str, drained: bool) -> Switch:
    """The switch `name` at `sw`, without interfaces."""
    inv = ctx.inv
    over = inv.overrides.devices.get(name)
    loopback = addressing.switch_loopback(inv, sw)
    mgmt, gw = addressing.switch_mgmt(inv, ctx.counts, sw, name)
    mg = inv.addressing.management
    nos = over.nos if over and over.nos else inv.fabric.nos.for_role(sw.role)
    built = Switch(
        name=name, role=sw.role, nos=nos,
        pod=sw.pod, su=sw.su, rail=sw.rail, group=sw.group, index=sw.index, loopback=f"{loopback}/32",
        mgmt_address=mgmt, mgmt_gateway=gw, mgmt_vrf=mg.vrf, ssh_user=mg.switch_user,
        cumulus_release=inv.fabric.cumulus_release, cumulus_config_mode=inv.fabric.cumulus_config_mode,
        mtu=inv.fabric.mtu.switch,
        adaptive_routing=inv.features.adaptive_routing, ar_link_util_threshold=inv.features.ar_link_util_threshold,
        interfaces=[], bgp=bgp(inv, sw, loopback), qos=qos(inv),
        hwsku=hwsku(ctx, name, sw.role) if nos == "sonic" else None,
        hardware=ctx.hw_for(sw.role).model, telemetry=telemetry(inv),
    )
    set_drained(built, drained)
    return built


def telemetry(inv: Inventory) -> SwitchTelemetry | None:
    t = inv.features.telemetry
    if t is None:
        return None
    return SwitchTelemetry(otlp_host=t.otlp.host, otlp_port=t.otlp.port, interval_s=t.interval_s)


def hwsku(ctx: Context, name: str, role: str) -> str:
    """The SONiC HWSKU of a switch (its override, else the fabric's, else its model's default HWSKU), checked
    against the tier's hardware."""
    over = ctx.inv.overrides.devices.get(name)
    sku = over.hwsku if over and over.hwsku else ctx.inv.fabric.sonic_hwsku or ctx.hw_for(role).default_sku
    where = (ctx.where("overrides", "devices", name, "hwsku") if over and over.hwsku
             else ctx.where("fabric", "sonic_hwsku"))
    if sku not in hw.hwsku_names():
        raise InventoryError(f"no port map for SONiC HWSKU {sku!r} (known: {', '.join(hw.hwsku_names())})",
                             **where, hint="use a known HWSKU or add src/netauto/platforms/data/sonic_hwsku/<HWSKU>.yaml")
    data = hw.load_hwsku(sku)
    if data.hardware.model != ctx.hw_for(role).model:
        raise InventoryError(f"SONiC HWSKU {sku} is for the {data.hardware.model}, the fabric's {role} switches are "
                             f"{ctx.hw_for(role).model} (fabric.switch_hardware)", **where,
                             hint="pick a HWSKU of the same hardware")
    check_cable_length(ctx, name, data)
    return sku


def check_cable_length(ctx: Context, name: str, sku: hw.HwSku) -> None:
    """SONiC (traditional buffer model) sizes lossless headroom from the SKU's pg_profile_lookup table."""
    fabric = ctx.inv.fabric
    cable = fabric.cable_length_m
    for speed in sorted({fabric.host_link_speed, fabric.fabric_link_speed}):
        if sku.lossless_profile(SPEEDS_MBPS[speed], cable) is None:
            lengths = sku.cable_lengths(SPEEDS_MBPS[speed])
            raise InventoryError(
                f"{name}: cable length {cable} m is longer than any {speed} row of the lossless headroom table "
                f"of SONiC HWSKU {sku.name} ({', '.join(f'{m} m' for m in lengths) or 'no rows'}): "
                "PFC would run without headroom", **ctx.where("fabric", "cable_length_m"),
                hint=f"use at most {lengths[-1]} m" if lengths else "pick a HWSKU with a lossless table")


def fabric_session_limits(inv: Inventory, switches: dict[str, Switch], host_pool: IPv4Network) -> None:
    """What a fabric session may carry: only the fabric's own prefixes (the loopback pools of the roles in use
    and the host pool, any length inside them), and at most `maximum_prefix` of them. The default is what the
    address plan can ever announce (every loopback of the pools in use, plus one block of leaf_prefix_len per
    leaf block of the host pool): it does not change when the fabric grows inside its plan, so adding a
    scalable unit changes no existing leaf's config (`netauto plan`); set fabric.bgp.maximum_prefix to bound
    it tighter."""
    roles = {sw.role for sw in switches.values()}
    pools = [str(addressing.pool(getattr(inv.addressing.loopbacks, r)))
             for r in ("leaf", "spine", "super_spine") if r in roles]
    accept = [PrefixRule(p, 32) for p in pools + [str(host_pool)]]
    hl = inv.addressing.host_links
    capacity = sum(addressing.pool(p).num_addresses for p in pools) + 2 ** max(0, hl.leaf_prefix_len - host_pool.prefixlen)
    limit = inv.fabric.bgp.maximum_prefix or capacity
    for sw in switches.values():
        sw.bgp.accept_prefixes = list(accept)
        sw.bgp.maximum_prefix = limit
