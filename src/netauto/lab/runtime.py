"""Bring a lab up and down: namespaces, veths, per-node mount+UTS isolation, real FRR/ifupdown2/sshd.

State lives in one folder per lab (default /var/lib/netauto/labs/<name>, override with NETAUTO_LAB_ROOT):
`state.json` (namespaces, anchor pids, addresses, expectations for `lab check`), `nodes/<device>/` (the
node's private /etc/frr, /etc/network, /run, /var/tmp, /tmp, /var/log/frr), `ssh/` (client key,
known_hosts, ssh_config). `down` needs nothing else, so it works from a fresh process or after a crash.
Where labs live and their state.json: lab.state; whether this host can run a lab: lab.preflight; the host's
neighbour table limits while labs run: lab.neigh_limits.
"""

from __future__ import annotations

import grp
import ipaddress
import json
import os
import pwd
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from netauto.cache import netns_ssh_config_path
from netauto.errors import NetautoError
from netauto.formats.fabric_marker import MARKER, marker_text
from netauto.lab import netns
from netauto.lab.neigh_limits import raise_neigh_limits, release_neigh_limits
from netauto.lab.plan import MGMT_NS, VOID_NS, LabPlan, Node, ns_prefix
from netauto.lab.preflight import preflight
from netauto.lab.state import _save_state, lab_dir, load_state
from netauto.netutil.ip import ip_of

NODE_MARKER = ".netauto-lab-node"  # /etc/<marker> inside a lab node = its /etc is private (deploy checks it)
NODE_SYSCTLS = (
    "net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 net.ipv4.fib_multipath_hash_policy=1 "
    "net.ipv6.fib_multipath_hash_policy=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0"
)

NODE_INIT = r"""#!/bin/sh
# netauto lab node init: runs inside the node's netns (ip netns exec) and a fresh UTS namespace (unshare --uts).
# ip netns exec already gives a private mount namespace with / as rslave, so these binds stay inside the node.
D="$1"; HOST="$2"; KIND="$3"; SSH="$4"; FRRDIR="${5:-etc/frr}"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin   # the node's own tools: no pyenv/venv shims from the caller (ifup is `env python3`)
setsid sh -c "echo \$\$ > $D/anchor.pid; exec sleep infinity" </dev/null >/dev/null 2>&1 &
hostname "$HOST"
mount --bind "$D/run" /run
mount --bind "$D/vartmp" /var/tmp
mount --bind "$D/tmp" /tmp
# a private, empty /root like a real device's: SSH sessions as root must not source the host's ~/.bashrc
# (pyenv init there made every remote command cost ~1 s of CPU) nor write the host's history/known_hosts
mkdir -p "$D/root" && chmod 700 "$D/root" && mount --bind "$D/root" /root
# a private /etc (overlay, upper = the node's etc/): files a deploy or a playbook writes anywhere under /etc
# (NVUE startup.yaml, /etc/cumulus/..., a server's netplan and sysctl.d) stay in the node instead of landing on
# the host; the marker file proves it. Servers get a private /usr/local too (the RoCE QoS script).
mkdir -p "$D/.etc-work"
mount -t overlay netauto-etc -o "lowerdir=/etc,upperdir=$D/etc,workdir=$D/.etc-work" /etc || echo "overlay /etc failed" >>"$D/overlay.err"
if [ "$KIND" = server ]; then
  mkdir -p "$D/usr/local" "$D/.usr-local-work"
  mount -t overlay netauto-usr-local -o "lowerdir=/usr/local,upperdir=$D/usr/local,workdir=$D/.usr-local-work" /usr/local || echo "overlay /usr/local failed" >>"$D/overlay.err"
fi
if [ "$KIND" = switch ]; then
  mount --bind "$D/$FRRDIR" /etc/frr
  # SONiC: the same directory also at /etc/sonic/frr, as the bgp container's bind mount makes it
  [ "$FRRDIR" = etc/frr ] || mount --bind "$D/$FRRDIR" "/$FRRDIR"
  mount --bind "$D/etc/network" /etc/network
  mount --bind "$D/log/frr" /var/log/frr
  sysctl -q -w __SYSCTLS__
fi
ip link set lo up
echo "mounts $(date +%s.%N)" > "$D/times"
if [ -s "$D/ip.batch" ]; then ip -force -batch "$D/ip.batch" >"$D/ip.log" 2>&1; echo $? > "$D/ip.rc"; fi
if [ -s "$D/sysctl.conf" ]; then sysctl -q -e -p "$D/sysctl.conf" >"$D/sysctl.log" 2>&1 || true; fi
if [ -s /etc/network/interfaces ] && [ "$KIND" = switch ] && [ ! -s "$D/ip.batch" ]; then
  ifup -a >"$D/ifup.log" 2>&1; echo $? > "$D/ifup.rc"
fi
echo "ifup $(date +%s.%N)" >> "$D/times"
if [ "$KIND" = switch ]; then
  /usr/lib/frr/frrinit.sh start >"$D/frrinit.log" 2>&1; echo $? > "$D/frrinit.rc"
fi
echo "frr $(date +%s.%N)" >> "$D/times"
# LLDP on every port, as on a switch or a server: lldpd with the node's own control socket and pid file
# (/run is private here: /run/lldpd.socket, /run/lldpd.pid, its privsep chroot /run/lldpd); port ids are
# interface names, as Cumulus and SONiC send them. No systemd: started here, stopped with the namespace.
if [ -x /usr/sbin/lldpd ] && [ -s "$D/lldpd.conf" ]; then /usr/sbin/lldpd -O "$D/lldpd.conf" >"$D/lldpd.log" 2>&1; echo $? > "$D/lldpd.rc"; fi
if [ "$SSH" = 1 ]; then /usr/sbin/sshd -f "$D/ssh/sshd_config" -E "$D/sshd.log"; echo $? > "$D/sshd.rc"; fi
exit 0
"""

# lldpd(8)/lldpcli(8) 1.0.16: ifname port ids (the cabling plan's names); a short interval so a re-cabled port
# is seen within seconds (the lab's swap helper also asks for an immediate update)
LLDPD_CONF = "configure lldp portidsubtype ifname\nconfigure lldp tx-interval 5\n"

SSHD_CONFIG = """Port 22
ListenAddress {addr}
HostKey {d}/ssh/ssh_host_ed25519_key
PidFile /run/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile {lab}/ssh/authorized_keys
StrictModes no
UsePAM no
PrintMotd no
PrintLastLog no
UseDNS no
Subsystem sftp /usr/lib/openssh/sftp-server
"""


# ---------------------------------------------------------------------------------------------- up


def _mgmt_bridge_addresses(plan: LabPlan) -> list[str]:
    nets: dict[Any, str] = {}
    for node in plan.nodes.values():
        if not node.mgmt_address:
            continue
        iface = ipaddress.ip_interface(node.mgmt_address)
        if iface.network in nets:
            continue
        gw = next((g for g in plan.mgmt_gateways if ipaddress.ip_address(g) in iface.network), None)
        if gw is None:
            gw = str(iface.network.broadcast_address - 1)
        nets[iface.network] = f"{gw}/{iface.network.prefixlen}"
    return sorted(nets.values())


def _prepare_node(lab: Path, node: Node, ssh: bool) -> Path:
    d = lab / "nodes" / node.device
    frr_uid, frr_gid = pwd.getpwnam("frr").pw_uid, grp.getgrnam("frr").gr_gid
    for sub, mode in (("run", 0o755), ("run/network", 0o755), ("run/sshd", 0o755), ("vartmp", 0o1777), ("tmp", 0o1777), ("ssh", 0o700)):
        (d / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(d / sub, mode)
    if node.kind == "switch":
        for sub in (node.frr_dir, "run/frr", "log/frr"):
            (d / sub).mkdir(parents=True, exist_ok=True)
            os.chown(d / sub, frr_uid, frr_gid)
        os.chmod(d / node.frr_dir, 0o750)
        (d / "etc/network").mkdir(parents=True, exist_ok=True)
        if Path("/etc/network/ifupdown2").is_dir():
            shutil.copytree("/etc/network/ifupdown2", d / "etc/network/ifupdown2", dirs_exist_ok=True)
        (d / node.frr_dir / "vtysh.conf").write_text("service integrated-vtysh-config\n")
    for rel, content in node.files.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content)
        owner = node.owner(rel) or ("frr:frr" if rel.startswith(node.frr_dir + "/") else None)
        if owner:  # the rendered owner (FRR's files frr:frr, the rest root:root)
            user, _, group = owner.partition(":")
            os.chown(p, pwd.getpwnam(user).pw_uid, grp.getgrnam(group or user).gr_gid)
        os.chmod(p, node.mode(rel))  # the rendered mode: scripts 0755, netplan 0600, FRR 0640 (intent)
    if node.kind == "switch":
        os.chown(d / node.frr_dir / "vtysh.conf", frr_uid, frr_gid)
    (d / "etc").mkdir(parents=True, exist_ok=True)
    (d / "etc" / NODE_MARKER).write_text(node.device + "\n")  # seen at /etc/<marker> only through the overlay
    batch = list(node.ip_batch)
    if node.kind == "server" and node.mgmt_address:
        batch = [f"addr add {node.mgmt_address} dev eth0", "link set dev eth0 up"] + batch
    (d / "ip.batch").write_text("\n".join(batch) + ("\n" if batch else ""))
    (d / "lldpd.conf").write_text(LLDPD_CONF)
    (d / "sysctl.conf").write_text("".join(f"{k} = {v}\n" for k, v in node.sysctls))
    if ssh and node.mgmt_address:
        addr = ip_of(node.mgmt_address)
        key = d / "ssh/ssh_host_ed25519_key"
        if not key.exists():
            netns.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", node.device, "-f", str(key)])
        (d / "ssh/sshd_config").write_text(SSHD_CONFIG.format(addr=addr, d=d, lab=lab))
    return d


def _setup_ssh_client(lab: Path, plan: LabPlan) -> None:
    s = lab / "ssh"
    s.mkdir(mode=0o700, exist_ok=True)
    if not (s / "id_ed25519").exists():
        netns.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"netauto-lab-{plan.name}", "-f", str(s / "id_ed25519")])
    (s / "authorized_keys").write_text((s / "id_ed25519.pub").read_text())
    known, cfg = [], []
    for node in plan.nodes.values():
        if not node.mgmt_address:
            continue
        addr = ip_of(node.mgmt_address)
        pub = (lab / "nodes" / node.device / "ssh/ssh_host_ed25519_key.pub").read_text().split()
        known.append(f"{node.device},{addr} {pub[0]} {pub[1]}")
        cfg.append(
            f"Host {node.device}\n  HostName {addr}\n  User root\n  IdentityFile {s}/id_ed25519\n  IdentitiesOnly yes\n"
            f"  UserKnownHostsFile {s}/known_hosts\n  StrictHostKeyChecking yes\n  HostKeyAlias {node.device}\n"
        )
    (s / "known_hosts").write_text("\n".join(known) + "\n")
    (s / "ssh_config").write_text("\n".join(cfg))


def up(plan: LabPlan, *, ssh: bool = False, log: Callable[[str], None] = lambda s: None, parallel: int | None = None,
       fabric_id: str | None = None) -> dict[str, Any]:
    """Build and start the lab. On any failure everything already created is torn down again."""
    pf = preflight(ssh=ssh)
    if not pf.ok:
        raise NetautoError("lab preflight failed: " + " | ".join(pf.problems))
    lab = lab_dir(plan.name)
    prefix = ns_prefix(plan.name)
    if (lab / "state.json").exists() or netns.list_netns(prefix):
        raise NetautoError(f"lab {plan.name!r} already exists ({lab}); run `netauto lab down --name {plan.name}` first")
    t0 = time.monotonic()
    timings: dict[str, float] = {}
    lab.mkdir(parents=True, exist_ok=True)
    state: dict[str, Any] = {**plan.to_state(), "status": "starting", "namespaces": plan.namespaces, "ssh": ssh,
                             "dir": str(lab), "started": time.time()}
    _save_state(lab, state)  # first, so `down` can always find what to remove
    try:
        fabric_ends = 2 * len(plan.links) + len(plan.stub_links)
        changed = raise_neigh_limits(plan.name, need=4 * fabric_ends + 4 * len(plan.nodes))
        state["sysctl_raised"] = changed or {}
        if changed:
            log("raised global neighbour-table limits (restored by `lab down`): " + ", ".join(f"{k} {v}" for k, v in changed.items()))
        netns.ip_batch([f"netns add {ns}" for ns in plan.namespaces])
        with ThreadPoolExecutor(max_workers=8) as ex:
            dirs = dict(zip(plan.nodes, ex.map(lambda n: _prepare_node(lab, n, ssh), plan.nodes.values())))
        for d in dirs.values():  # the fabric every node belongs to (deploy refuses another inventory's)
            (d / MARKER.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
            (d / MARKER.lstrip("/")).write_text(marker_text(plan.fabric, fabric_id))  # and its id (deploy/identity.py)
        if ssh:
            _setup_ssh_client(lab, plan)
        init = lab / "node-init.sh"
        init.write_text(NODE_INIT.replace("__SYSCTLS__", NODE_SYSCTLS))
        init.chmod(0o755)
        timings["prepare"] = time.monotonic() - t0
        # links: created directly inside the target namespaces (names never exist in the root namespace)
        mgmt, void = prefix + MGMT_NS, prefix + VOID_NS
        lines = [f"link add {l.a_port} netns {l.a_ns} type veth peer name {l.b_port} netns {l.b_ns}" for l in plan.links]
        lines += [f"link add {l.a_port} netns {l.a_ns} type veth peer name {l.b_port} netns {l.b_ns}" for l in plan.stub_links]
        mgmt_ports = []
        for i, node in enumerate(plan.nodes.values()):
            lines.append(f"link add eth0 netns {node.ns} type veth peer name m{i} netns {mgmt}")
            mgmt_ports.append(f"m{i}")
        lines.append(f"link add br0 netns {mgmt} type bridge")
        netns.ip_batch(lines)
        netns.ip_batch(
            ["link set lo up", *[f"link set {p} master br0" for p in mgmt_ports], *[f"link set {p} up" for p in mgmt_ports],
             "link set br0 up", *[f"addr add {a} dev br0" for a in _mgmt_bridge_addresses(plan)]],
            mgmt,
        )
        netns.ip_batch(["link set lo up", *[f"link set {l.b_port} up" for l in plan.stub_links]], void)
        state["mgmt_bridge"] = _mgmt_bridge_addresses(plan)
        timings["links"] = time.monotonic() - t0
        log(f"{len(plan.namespaces)} namespaces, {len(lines)} veth pairs/bridges in {timings['links']:.1f} s; starting nodes")

        def start(dev: str) -> tuple[str, int, str]:
            node = plan.nodes[dev]
            p = subprocess.run(
                ["ip", "netns", "exec", node.ns, "unshare", "--uts", "--", "/bin/sh", str(init), str(dirs[dev]), dev,
                 node.kind, "1" if ssh else "0", node.frr_dir],
                capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
            )
            return dev, p.returncode, p.stderr

        # switches first (they converge), servers are cheap
        order = [d for d, n in plan.nodes.items() if n.kind == "switch"] + [d for d, n in plan.nodes.items() if n.kind != "switch"]
        workers = parallel or max(4, 2 * (os.cpu_count() or 2))
        errors = []
        with ThreadPoolExecutor(max_workers=workers) as ex:
            for dev, rc, err in ex.map(start, order):
                if rc != 0:
                    errors.append(f"{dev}: node init rc {rc}: {err.strip()[:300]}")
        for dev in order:
            d = dirs[dev]
            pid = (d / "anchor.pid").read_text().strip() if (d / "anchor.pid").exists() else None
            state["nodes"][dev]["anchor"] = int(pid) if pid else None
            state["nodes"][dev]["dir"] = str(d)
            for step in ("ifup", "ip", "frrinit", "sshd"):
                rc_file = d / f"{step}.rc"
                if rc_file.exists() and rc_file.read_text().strip() != "0":
                    logf = d / f"{step}.log"
                    detail = logf.read_text().strip().splitlines()[-3:] if logf.exists() else []
                    errors.append(f"{dev}: {step} rc {rc_file.read_text().strip()}: {' | '.join(detail)}")
        state["warnings"] = errors
        timings["started"] = time.monotonic() - t0
        state["timings"] = timings
        state["status"] = "up"
        _save_state(lab, state)
        if any("frrinit" in e or "node init" in e for e in errors):
            raise NetautoError("lab nodes failed to start: " + "; ".join(errors[:5]))
        return state
    except BaseException:
        down(plan.name, log=log)
        raise


# ---------------------------------------------------------------------------------------------- down / status / exec


def down(name: str, log: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Kill every process in the lab's namespaces, delete them, restore sysctls. Idempotent."""
    lab = lab_dir(name)
    prefix = ns_prefix(name)
    names = set(netns.list_netns(prefix))
    f = lab / "state.json"
    if f.exists():
        try:
            names |= {n for n in json.loads(f.read_text()).get("namespaces", []) if (netns.NETNS_DIR / n).exists()}
        except ValueError:
            pass
    names_l = sorted(names)
    pids = netns.pids_in_netns(names_l)
    all_pids = sorted({p for v in pids.values() for p in v})
    killed = netns.kill_pids(all_pids) if all_pids else 0
    if names_l:
        netns.ip_batch([f"netns del {n}" for n in names_l], force=True)
    left = netns.list_netns(prefix)
    restored = release_neigh_limits(name)
    if lab.exists():
        shutil.rmtree(lab, ignore_errors=True)
    for ns in {*names_l, f"{prefix}{MGMT_NS}"}:  # the client config deploy/verify --lab wrote for the lab
        netns_ssh_config_path(ns).unlink(missing_ok=True)
    res = {"namespaces": len(names_l), "processes": len(all_pids), "sigkill": killed, "left": left, "restored": restored}
    log(f"lab {name}: stopped {len(all_pids)} processes ({killed} needed SIGKILL), deleted {len(names_l)} namespaces"
        + (f", restored {', '.join(f'{k}={v}' for k, v in restored.items())}" if restored else ""))
    if left:
        raise NetautoError(f"namespaces still present after down: {', '.join(left)}")
    return res


def status(name: str) -> dict[str, Any]:
    st = load_state(name)
    nss = [n["ns"] for n in st["nodes"].values()]
    pids = netns.pids_in_netns(nss)
    rows = []
    for dev, n in st["nodes"].items():
        rows.append({"device": dev, "kind": n["kind"], "ns": n["ns"], "present": (netns.NETNS_DIR / n["ns"]).exists(),
                     "processes": len(pids.get(n["ns"], [])), "mgmt": n.get("mgmt_address")})
    return {"state": st, "rows": rows}


def node_anchor(st: dict[str, Any], device: str) -> tuple[int | None, str]:
    if device not in st["nodes"]:
        raise NetautoError(f"no device {device!r} in lab {st['name']} (devices: {', '.join(list(st['nodes'])[:6])}, ...)")
    n = st["nodes"][device]
    return n.get("anchor"), n["ns"]


def exec_argv(st: dict[str, Any], device: str, cmd: list[str]) -> list[str]:
    """nsenter into the node's mount, UTS and network namespaces (it then sees its own /etc/frr, hostname...)."""
    pid, ns = node_anchor(st, device)
    if pid and Path(f"/proc/{pid}").exists():
        return ["nsenter", "-t", str(pid), "-m", "-u", "-n", "--", *cmd]
    return ["ip", "netns", "exec", ns, *cmd]


def vtysh(st: dict[str, Any], device: str, *commands: str, timeout: float = 20) -> subprocess.CompletedProcess:
    d = Path(st["nodes"][device]["dir"])
    argv = ["vtysh", "--vty_socket", str(d / "run/frr")]
    for c in commands:
        argv += ["-c", c]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def memory_kib(st: dict[str, Any]) -> dict[str, int]:
    """PSS of every process in the lab's namespaces, per device (from /proc/<pid>/smaps_rollup)."""
    nss = {n["ns"]: dev for dev, n in st["nodes"].items()}
    pids = netns.pids_in_netns(list(nss))
    out = {}
    for ns, plist in pids.items():
        total = 0
        for pid in plist:
            try:
                for line in open(f"/proc/{pid}/smaps_rollup"):
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
            except OSError:
                pass
        out[nss[ns]] = total
    return out
