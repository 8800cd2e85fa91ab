"""GPU-server NIC rules: rail NICs resolvable, provisioning persistent, NCCL exact, host AR and CNP equal the switches'.

HOST-06, NCCL-01 and AR-04 check the compute fabric's servers (`view.provisioning`); the storage/frontend
networks' views carry no NCCL or firmware files. HOST-07 checks every network whose servers get NIC QoS units
(`view.qos_units`: the compute rails and each lossless network). Q-05 checks every RoCE QoS script, networks included."""

from __future__ import annotations

from netauto.validate.rules import RuleOutput, rule
from netauto.validate.readers.server import HOST_FILES
from netauto.validate.state import ParsedFabric, ServerState

NETPLAN = HOST_FILES["netplan"]
SCRIPT = HOST_FILES["qos"]
UNIT = HOST_FILES["unit"]
UNIT_RAIL = HOST_FILES["unit_rail"]
UDEV = HOST_FILES["udev"]
FIRMWARE = HOST_FILES["firmware"]
NCCL = HOST_FILES["nccl"]


def _script_rails(srv: ServerState) -> dict[str, str]:
    """rail NIC name -> RDMA device, as the provisioning script checks them on the host."""
    return {r.name: r.rdma for r in (srv.qos.rails if srv.qos else [])}


def _udev_names(srv: ServerState) -> dict[str, str]:
    """NIC name -> PCI address, from the udev rules that name a NIC by its PCI path."""
    names = {}
    for r in srv.udev:
        keys = {(k, op): v for k, op, v in r}
        path = keys.get(("ENV{ID_PATH}", "=="), "")
        if keys.get(("ACTION", "==")) == "add" and keys.get(("SUBSYSTEM", "==")) == "net" and path.startswith("pci-") \
                and ("NAME", "=") in keys:
            names[keys[("NAME", "=")]] = path[4:]
    return names


def _kernel_names(view: ParsedFabric, dev: str) -> set[str]:
    """Rail NICs the inventory declares to be the host's own names (profile nic_names: kernel)."""
    return {r.nic for s in view.model.servers if s.name == dev for r in s.rails if r.match == "kernel"}


@rule(id="HOST-06", severity="error",
      description="every rail NIC resolvable: netplan matches its MAC and sets the name, or udev names it by PCI path")
def nic_resolvable(view: ParsedFabric) -> RuleOutput:
    if not view.provisioning:
        return
    for dev, srv in view.servers.items():
        by_pci = _udev_names(srv)
        pcis = list(by_pci.values())
        for pci in sorted({p for p in pcis if pcis.count(p) > 1}):
            yield dev, f"PCI {pci} is given two names ({', '.join(n for n, p in by_pci.items() if p == pci)})", UDEV
        script = _script_rails(srv)
        kernel = _kernel_names(view, dev)
        for name, nic in srv.nics.items():
            by_mac = bool(nic.match.get("macaddress")) and nic.set_name == name
            if not by_mac and name not in by_pci and name not in kernel:
                how = "match has no macaddress" if not nic.match.get("macaddress") else f"set-name is {nic.set_name!r}"
                yield dev, (f"{name}: unresolvable ({how} and no udev rule names it by PCI path): on a host with "
                            "predictable interface names netplan configures nothing. Fix: give the NIC's pci (or "
                            "its MAC under servers.hosts.<server>.macs), or, if this is the host's own predictable "
                            "name (e.g. enp24s0np0), set nic_names: kernel in its profile"), NETPLAN
            if not nic.optional:
                yield dev, f"{name}: not `optional: true`: a dead rail holds boot in systemd-networkd-wait-online", NETPLAN
            if srv.qos is not None and name not in script:
                yield dev, f"{name}: not in the provisioning script's rails: its RoCE QoS is never applied", SCRIPT


@rule(id="HOST-07", severity="error",
      description="NIC provisioning persistent: boot unit enabled, per-NIC unit started by udev on NIC add, values read "
                  "back (the compute rails and every lossless network, each with its own units)")
def provisioning_unit(view: ParsedFabric) -> RuleOutput:
    if not view.qos_units:
        return
    hf = view.host_files  # names on the host; findings name the compute paths, the network view maps them back
    script_path = "/" + hf.qos_script
    for dev, srv in view.servers.items():
        unit = srv.units.get("unit")
        if unit is None:
            yield dev, f"no {hf.unit}: the RoCE QoS is lost at the first reboot, driver reload or firmware reset", UNIT
        else:
            exec_start = unit.get("Service", {}).get("ExecStart", [])
            if not exec_start or exec_start[-1].split()[0].lstrip("-@:+!") != script_path:
                yield dev, f"ExecStart is {exec_start[-1] if exec_start else 'missing'}, must run {script_path}", UNIT
            if unit.get("Service", {}).get("Type", [""])[-1] != "oneshot":
                yield dev, "Type must be oneshot (the unit runs the script to completion at boot)", UNIT
            wanted = " ".join(unit.get("Install", {}).get("WantedBy", [])).split()
            if "multi-user.target" not in wanted:
                yield dev, f"not enabled at boot: [Install] WantedBy={' '.join(wanted) or 'nothing'}, need multi-user.target", UNIT
            before = set(" ".join(unit.get("Unit", {}).get("Before", [])).split())
            if not {"kubelet.service", "slurmd.service"} <= before:
                yield dev, ("not ordered Before=kubelet.service slurmd.service: pods and jobs may start on NICs "
                            "without their RoCE QoS"), UNIT
        rail_unit = srv.units.get("unit_rail")
        starts = rail_unit.get("Service", {}).get("ExecStart", []) if rail_unit else []
        if not starts or starts[-1].split()[:2] != [script_path, "%i"]:
            yield dev, f"no per-NIC unit running `{script_path} %i`: a NIC added or reset later keeps no QoS", UNIT_RAIL
        wants = {}
        for r in srv.udev:
            keys = {(k, op): v for k, op, v in r}
            if keys.get(("ACTION", "==")) == "add" and keys.get(("SUBSYSTEM", "==")) == "net" \
                    and ("NAME", "==") in keys and ("ENV{SYSTEMD_WANTS}", "+=") in keys:
                wants[keys[("NAME", "==")]] = keys[("ENV{SYSTEMD_WANTS}", "+=")]
        for name in srv.nics:
            if wants.get(name) != hf.nic_unit_for(name):
                yield dev, f"{name}: no udev rule starting {hf.nic_unit_for(name)} when the NIC is added", UDEV
        if srv.qos is not None and not srv.qos.reads_back:
            yield dev, "the provisioning script does not read back what it writes", SCRIPT


def _prefix_clash(names: list[str], devices: list[str]) -> list[str]:
    return [f"{n} also selects {d}" for n in names for d in devices if d != n and d.startswith(n)]


@rule(id="NCCL-01", severity="error",
      description="NCCL_IB_HCA exact (`=` prefix) and complete: every rail's RDMA device on port 1, nothing else")
def nccl_hca(view: ParsedFabric) -> RuleOutput:
    if not view.provisioning:
        return
    intent = view.server_intent()
    for dev, srv in view.servers.items():
        want = _script_rails(srv) or {r.nic: r.rdma_device for r in intent[dev].rails}
        hca = srv.nccl.get("NCCL_IB_HCA")
        if hca is None:
            yield dev, "no NCCL_IB_HCA: NCCL uses every RDMA device it finds, management and storage NICs included", NCCL
            continue
        exact = hca.startswith("=")
        entries = [e for e in hca.lstrip("=").split(",") if e]
        names = [e.split(":")[0] for e in entries]
        if not exact:
            clash = _prefix_clash(names, sorted(set(want.values())))
            yield dev, ("NCCL_IB_HCA is prefix-matched (no leading `=`)"
                        + (f": {', '.join(clash)}" if clash else ": mlx5_1 would also select mlx5_10..mlx5_19")), NCCL
        want = {**want, **{f"plane port {r}": r for r in view.plane_hca.get(dev, [])}}  # swplb: every plane port
        missing = [f"{r} ({nic})" for nic, r in want.items() if r not in names]
        extra = [n for n in names if n not in want.values()]
        if missing:
            yield dev, f"NCCL_IB_HCA lacks rail RDMA device(s) {', '.join(missing)}", NCCL
        if extra:
            yield dev, f"NCCL_IB_HCA lists {', '.join(extra)}, which is no rail NIC's RDMA device", NCCL
        ports = [e for e in entries if ":" in e and e.split(":", 1)[1] != "1"]
        if ports:
            yield dev, f"NCCL_IB_HCA port other than 1: {', '.join(ports)}", NCCL


def _switch_ar(view: ParsedFabric) -> bool | None:
    states = [st.ar_global for st in view.switches.values()]
    return (sum(states) * 2 >= len(states)) if states else None


@rule(id="AR-04", severity="error",
      description="host adaptive routing equals the switches': NCCL_IB_ADAPTIVE_ROUTING and firmware ROCE_ADAPTIVE_ROUTING_EN")
def host_ar(view: ParsedFabric) -> RuleOutput:
    ar = _switch_ar(view)
    if ar is None or not view.provisioning:
        return
    want = "1" if ar else "0"
    for dev, srv in view.servers.items():
        got = srv.nccl.get("NCCL_IB_ADAPTIVE_ROUTING")
        if got != want:
            shown = f"NCCL_IB_ADAPTIVE_ROUTING={got}" if got is not None else "no NCCL_IB_ADAPTIVE_ROUTING (NCCL: off on RoCE)"
            yield dev, f"{shown}, the switches run adaptive routing {'on' if ar else 'off'}: set it to {want}", NCCL
        for kind, params in (srv.firmware or {}).items():
            if not params:
                continue  # the NIC Configuration Operator owns this firmware: K8S-10 checks its template
            fw = params.get("ROCE_ADAPTIVE_ROUTING_EN")
            if fw is None or fw != int(ar):
                yield dev, (f"{kind} firmware ROCE_ADAPTIVE_ROUTING_EN={fw if fw is not None else 'unset'}, "
                            f"the switches run adaptive routing {'on' if ar else 'off'}"), FIRMWARE


@rule(id="Q-05", severity="error",
      description="hosts mark CNPs with a DSCP the switches put in the strict, non-PFC CNP class, and that class's priority")
def host_cnp(view: ParsedFabric) -> RuleOutput:
    switch = next((st for st in view.switches.values() if st.qos.dscp_to_prio), None)
    if switch is None:
        return
    for dev, srv in view.servers.items():
        q = srv.qos
        if q is None:
            continue  # no RoCE QoS script: report it (a lossy network has none)
        if q.cnp_dscp is None or q.cnp_priority is None:
            yield dev, "the provisioning script neither sets nor reads back the CNP DSCP and 802.1p priority", SCRIPT
            continue
        cls = switch.qos.dscp_to_prio.get(q.cnp_dscp)
        if cls is None:
            yield dev, (f"CNP DSCP {q.cnp_dscp} is not classified by the switches ({switch.name}): CNPs land in the "
                        "default lossy class"), SCRIPT
            continue
        if switch.qos.ets.get(cls, ("dwrr", 0))[0] != "strict" or cls in switch.qos.pfc_prios:
            yield dev, f"CNP DSCP {q.cnp_dscp} lands in class {cls} on {switch.name}, which is not the strict CNP class", SCRIPT
        if q.cnp_priority != cls:
            yield dev, f"CNP 802.1p priority {q.cnp_priority}, the switches' CNP class is {cls} (DSCP {q.cnp_dscp})", SCRIPT
        for kind, params in (srv.firmware or {}).items():
            if not params:
                continue  # the NIC Configuration Operator owns this firmware: K8S-10 checks its template
            for name, want in (("CNP_DSCP_P1", q.cnp_dscp), ("CNP_802P_PRIO_P1", q.cnp_priority)):
                if params.get(name) != want:
                    yield dev, f"{kind} firmware {name}={params.get(name)}, the runtime setting is {want}", FIRMWARE
