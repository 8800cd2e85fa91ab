"""Can this host run a lab: root, the tools (FRR, ifupdown2, lldpd, sshd...) and the kernel's device types,
each missing piece named with the package that brings it."""

from __future__ import annotations

import os
import pwd
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from netauto.lab import netns

FRR_LIB = Path("/usr/lib/frr")


@dataclass(slots=True)
class Preflight:
    problems: list[str] = field(default_factory=list)
    info: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


_KERNEL_PROBE: dict[str, bool] | None = None


def probe_kernel() -> dict[str, bool]:
    """Create a scratch netns and try the device types the lab (or a real switch) would use."""
    global _KERNEL_PROBE
    if _KERNEL_PROBE is not None:
        return _KERNEL_PROBE
    ns = f"na-probe{os.getpid()}"
    res: dict[str, bool] = {}
    netns.run(["ip", "netns", "add", ns])
    try:
        tests = {
            "veth": ["link", "add", "pa", "type", "veth", "peer", "name", "pb"],
            "bridge": ["link", "add", "br0", "type", "bridge"],
            "vrf": ["link", "add", "vrf0", "type", "vrf", "table", "1001"],
            "dummy": ["link", "add", "dm0", "type", "dummy"],
            "vlan": ["link", "add", "link", "pa", "name", "pa.10", "type", "vlan", "id", "10"],
            "bond": ["link", "add", "bd0", "type", "bond"],
            "vlan_filtering": ["link", "add", "br1", "type", "bridge", "vlan_filtering", "1"],
        }
        for feat, args in tests.items():
            res[feat] = netns.run(["ip", "-n", ns, *args], check=False).returncode == 0
        res["ipv6"] = Path("/proc/sys/net/ipv6").is_dir()
    finally:
        netns.run(["ip", "netns", "del", ns], check=False)
    _KERNEL_PROBE = res
    return res


def preflight(ssh: bool = False) -> Preflight:
    pf = Preflight()
    if os.geteuid() != 0:
        pf.problems.append("must run as root (network namespaces, mounts, veths): try `sudo netauto lab ...`")
        return pf
    tools = {
        "ip": ("iproute2", shutil.which("ip")),
        "unshare": ("util-linux", shutil.which("unshare")),
        "nsenter": ("util-linux", shutil.which("nsenter")),
        "frrinit.sh": ("frr", str(FRR_LIB / "frrinit.sh") if (FRR_LIB / "frrinit.sh").exists() else None),
        "zebra/bgpd/staticd/watchfrr": ("frr", str(FRR_LIB) if all((FRR_LIB / d).exists() for d in ("zebra", "bgpd", "staticd", "watchfrr")) else None),
        "vtysh": ("frr", shutil.which("vtysh")),
        "frr-reload.py": ("frr-pythontools", str(FRR_LIB / "frr-reload.py") if (FRR_LIB / "frr-reload.py").exists() else None),
        "ifup (ifupdown2)": ("ifupdown2", shutil.which("ifup") if Path("/usr/share/ifupdown2").exists() else None),
        "ping": ("iputils-ping", shutil.which("ping")),
        "lldpd/lldpcli": ("lldpd", shutil.which("lldpcli") if Path("/usr/sbin/lldpd").exists() else None),
    }
    if ssh:
        tools["sshd"] = ("openssh-server", "/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists() else None)
        tools["ssh-keygen"] = ("openssh-client", shutil.which("ssh-keygen"))
    missing: dict[str, list[str]] = {}
    for tool, (pkg, path) in tools.items():
        if not path:
            missing.setdefault(pkg, []).append(tool)
    if missing:
        pkgs = " ".join(sorted(missing))
        pf.problems.append(
            "missing tools: " + "; ".join(f"{', '.join(t)} (package {p})" for p, t in sorted(missing.items()))
            + f"; fix: apt-get install -y {pkgs}"
        )
    try:
        pwd.getpwnam("frr")
    except KeyError:
        pf.problems.append("user 'frr' does not exist (package frr creates it)")
    if shutil.which("ip"):
        k = probe_kernel()
        for need in ("veth", "bridge", "ipv6"):
            if not k.get(need):
                pf.problems.append(f"kernel lacks {need}: the lab cannot be built (needs veth, bridge and IPv6 for BGP unnumbered)")
        absent = [f for f in ("vrf", "vlan_filtering", "vlan", "bond", "dummy") if not k.get(f)]
        if absent:
            pf.info.append(f"kernel lacks {', '.join(absent)}: mgmt VRF and VLAN-aware bridges are adapted (`netauto lab up` lists each adaptation)")
    return pf
