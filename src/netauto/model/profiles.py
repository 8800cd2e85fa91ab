"""Server models (profiles): which rail NICs a server has, and which profile each server uses."""

from __future__ import annotations

from typing import Any

from netauto.errors import InventoryError
from netauto.inventory.schema import Inventory
from netauto.inventory.servers import KERNEL_NIC_PREFIXES, RailNic, ServerProfile
from netauto.model.context import Context, Where
from netauto.model.topology import Counts


def check_nic_names(prof: ServerProfile, at: dict[str, Any]) -> None:
    """A rail NIC netauto renames must not take a name in the kernel's own namespaces (eth*, ib*, en*): the
    rename races with the kernel's naming (systemd.link(5)) and an address or QoS setting lands on the wrong NIC.
    Names that ARE the kernel's predictable names are declared with nic_names: kernel."""
    if prof.nic_names == "kernel":
        return
    bad = [n.name for n in prof.nics if n.name.startswith(KERNEL_NIC_PREFIXES)]
    if bad:
        raise InventoryError(
            f"rail NIC name(s) {', '.join(bad)} are in the kernel's own namespace (eth*, ib*, en*): renaming a NIC "
            "to them races with the kernel's naming and can put an address or QoS setting on the wrong NIC",
            **at, hint="name them outside it (rail0, rail1, ...), or, if these are the host's own predictable "
                       "names, set nic_names: kernel")


def server_profiles(inv: Inventory, n: Counts, where: Where) -> dict[str, ServerProfile]:
    """The server models of the fabric. The older form (one NIC list) becomes the profile `default`."""
    s, rails = inv.servers, n.rails
    if not s.profiles:
        nics = s.nics if s.nics is not None else [f"rail{i}" for i in range(rails)]
        rdma = s.rdma_devices if s.rdma_devices is not None else [f"mlx5_{i}" for i in range(rails)]
        for key, vals in (("nics", nics), ("rdma_devices", rdma), ("pci", s.pci)):
            if vals is not None and len(vals) != rails:
                raise InventoryError(
                    f"lists {len(vals)} entries but topology.rails is {rails}",
                    **where("servers", key), hint="give exactly one entry per rail",
                )
        default = ServerProfile(nic_names=s.nic_names, nics=[
            RailNic(rail=i, name=nics[i], rdma=rdma[i], pci=s.pci[i] if s.pci else None) for i in range(rails)])
        check_nic_names(default, where("servers", "nics"))
        return {"default": default}
    for pname, prof in s.profiles.items():
        out = sorted({nic.rail for nic in prof.nics} | set(prof.absent_rails))
        beyond = [r for r in out if r >= rails]
        if beyond:
            raise InventoryError(f"rail(s) {beyond} do not exist: topology.rails is {rails} (rails count from 0)",
                                 **where("servers", "profiles", pname, "nics"), hint="remove them")
        missing = [r for r in range(rails) if r not in out]
        if missing:
            raise InventoryError(
                f"profile {pname!r} has no NIC for rail(s) {missing} of the {rails}-rail fabric",
                **where("servers", "profiles", pname, "nics"),
                hint=f"add the NICs, or say the server model lacks them: absent_rails: {missing}",
            )
        if not prof.nics:
            raise InventoryError("a profile needs at least one rail NIC", **where("servers", "profiles", pname),
                                 hint="list its rail NICs under nics")
        check_nic_names(prof, where("servers", "profiles", pname, "nics"))
    for su in s.su_profiles:
        if not 1 <= su <= n.sus:
            raise InventoryError(f"no SU {su} in this fabric (SUs 1..{n.sus})",
                                 **where("servers", "su_profiles", su), hint="use an existing SU number")
    return dict(s.profiles)


def server_profile(ctx: Context, name: str, su: int) -> tuple[str, ServerProfile]:
    """(profile name, profile) of server `name` in SU `su`: its host entry, its SU's, the fabric's, or the
    only one there is."""
    s = ctx.inv.servers
    host = s.hosts.get(name)
    pname = (host.profile if host and host.profile else None) or s.su_profiles.get(su) or s.profile
    if pname is None:
        if len(ctx.profiles) != 1:
            raise InventoryError(f"server {name} (SU {su}) has no profile", **ctx.where("servers"),
                                 hint="set servers.profile, su_profiles or hosts.<name>.profile")
        pname = next(iter(ctx.profiles))
    return pname, ctx.profiles[pname]
