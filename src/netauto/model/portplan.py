"""The port plan: each tier's switch model, how its cages are split, and whether the port ranges fit."""

from __future__ import annotations

from netauto.errors import InventoryError, NetautoError
from netauto.inventory.schema import SPEEDS_MBPS, Inventory, RolePorts
from netauto.model.context import Context, Where
from netauto.model.ports import cages_used
from netauto.platforms import hardware as hw

ROLES = ("leaf", "spine", "super_spine")


def switch_hardware(inv: Inventory, where: Where) -> dict[str, hw.Hardware]:
    """The switch model of each tier (`fabric.switch_hardware`: one name, or one per tier)."""
    spec = inv.fabric.switch_hardware
    models = {r: spec if isinstance(spec, str) else getattr(spec, r) for r in ROLES}
    out: dict[str, hw.Hardware] = {}
    for role, model in models.items():
        if model not in hw.hardware_models():
            at = ("fabric", "switch_hardware") if isinstance(spec, str) else ("fabric", "switch_hardware", role)
            raise InventoryError(f"unknown switch hardware {model!r} (known: {', '.join(hw.hardware_models())})",
                                 **where(*at),
                                 hint="use a known model or add src/netauto/platforms/data/hardware/<model>.yaml")
        out[role] = hw.load_hardware(model)
    return out


def group_speed(inv: Inventory, role: str, group: str) -> str:
    """Leaf downlinks run the host link speed, every other port group the fabric link speed."""
    return inv.fabric.host_link_speed if (role, group) == ("leaf", "downlinks") else inv.fabric.fabric_link_speed


def breakout(ctx: Context, role: str, group: str) -> int:
    """How the cages of a port group are split: derived from the link speed and the hardware's lane rate."""
    key = (role, group)
    if key in ctx.breakouts:
        return ctx.breakouts[key]
    pr = getattr(getattr(ctx.inv.ports, role), group)
    hw_ = ctx.hw_for(role)
    speed = group_speed(ctx.inv, role, group)
    lane = SPEEDS_MBPS[pr.lane_speed] if pr.lane_speed else None
    try:
        ways = hw_.breakout_for(pr.first, SPEEDS_MBPS[speed], lane, where=f"ports.{role}.{group}")
    except NetautoError as exc:
        raise InventoryError(str(exc).split(": ", 1)[1], **ctx.where("ports", role, group),
                             hint="change the link speed, lane_speed or the first cage") from None
    if pr.breakout is not None and pr.breakout != ways:
        lanes = len(hw_.cages[pr.first].lanes)
        raise InventoryError(
            f"breakout {pr.breakout} does not fit {speed} links on {hw_.model} cages "
            f"({lanes} lanes of {(lane or hw_.lane_speed_mbps) // 1000}G): a {speed} port takes "
            f"{lanes // ways} lanes, so the cage is a {ways}x breakout",
            **ctx.where("ports", role, group, "breakout"),
            hint=f"write breakout: {ways} (or leave it out), or state the lane rate with lane_speed")
    ctx.breakouts[key] = ways
    return ways


def port_demand(ctx: Context) -> dict[str, tuple[int, int]]:
    """role -> (downlink ports, uplink ports) each switch of the tier needs."""
    t, n = ctx.inv.topology, ctx.counts
    return {
        "leaf": (n.servers_per_su, t.spines_per_pod * t.leaf_spine_links),
        "spine": (
            t.sus_per_pod * n.rails * t.leaf_spine_links,
            t.super_spines_per_group * t.spine_super_spine_links if n.three_tier else 0,
        ),
        "super_spine": (n.pods * t.spine_super_spine_links if n.three_tier else 0, 0),
    }


def check_port_ranges(ctx: Context) -> None:
    """Each tier's downlink and uplink ranges fit the hardware's cages and do not overlap."""
    for role, (down, up) in port_demand(ctx).items():
        rp: RolePorts = getattr(ctx.inv.ports, role)
        hw_ = ctx.hw_for(role)
        down_cages = cages_used(rp.downlinks.first, breakout(ctx, role, "downlinks"), down) if down else range(0)
        up_cages = cages_used(rp.uplinks.first, breakout(ctx, role, "uplinks"), up) if up else range(0)
        for kind, cages in (("downlinks", down_cages), ("uplinks", up_cages)):
            odd = [c for c in cages if c not in hw_.cages
                   or len(hw_.cages[c].lanes) != len(hw_.cages[cages[0]].lanes)]
            if odd:
                last = max(n for n, c in hw_.cages.items() if len(c.lanes) == len(hw_.cages[cages[0]].lanes)) \
                    if cages[0] in hw_.cages else max(hw_.cages)
                raise InventoryError(
                    f"{role} {kind} need cages {cages[0]}-{cages[-1]} but the {hw_.model} has "
                    f"{len(hw_.cages[cages[0]].lanes) if cages[0] in hw_.cages else 8}-lane cages 1-{last}",
                    **ctx.where("ports", role, kind, "first"),
                    hint="lower the first cage, or fewer links per switch")
            if len(cages) and cages[-1] > rp.cages:
                raise InventoryError(
                    f"{role} {kind} need cages {cages[0]}-{cages[-1]} but the switch has {rp.cages}",
                    **ctx.where("ports", role, kind, "first"), hint=f"lower the first cage or raise ports.{role}.cages",
                )
        if len(down_cages) and len(up_cages) and set(down_cages) & set(up_cages):
            raise InventoryError(
                f"a port used twice: {role} uplinks use cages {up_cages[0]}-{up_cages[-1]}, "
                f"downlinks use {down_cages[0]}-{down_cages[-1]}",
                **ctx.where("ports", role, "uplinks", "first"), hint=f"start the uplinks above cage {down_cages[-1]}",
            )
