"""`netauto deploy --lab NAME`: reach a running `netauto lab up --ssh` the way its own tools do.

Everything comes from the lab's state folder (see netauto.lab.runtime): management addresses from
state.json, the lab's client key and known_hosts from ssh/. Every socket is opened inside the lab's
management namespace (na-<name>-mgmt), never from the host's own network (lab-notes G1).

What a lab switch holds is not the rendered intent verbatim: its /etc/network/interfaces is the lab
variant (no mgmt VRF...), and a file nothing in the lab applies (NVUE startup.yaml, a SONiC switch's
config_db.json after `lab up`) is marked inert. The targets therefore use the lab plan's files (the same
code `lab up` used), so a dry-run against a fresh lab shows no diff. A SONiC node keeps SONiC's layout
(/etc/sonic/frr is FRR's /etc/frr) but runs FRR in the node itself, not in a `bgp` container.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from netauto.deploy.targets import Access, Credentials, Variant
from netauto.errors import NetautoError
from netauto.model.cluster import ClusterModel
from netauto.model.types import FabricModel
from netauto.render.engine import Artifact
from netauto.netutil.ip import ip_of
from netauto.lab.state import load_state
from netauto.lab.plan import build_plan
from netauto.lab.networks import build_cluster_plan
from netauto.lab.runtime import NODE_MARKER
from netauto.lab.state import lab_dir

# every lab node has a private /etc (servers also /usr/local): `lab up` writes /etc/<NODE_MARKER> naming it


def _state(name: str) -> dict[str, Any]:

    st = load_state(name)
    if not st.get("ssh"):
        raise NetautoError(f"lab {name} was started without --ssh: `netauto lab down --name {name}` and "
                           f"`netauto lab up --name {name} --ssh`")
    if st.get("status") != "up":
        raise NetautoError(f"lab {name} is {st.get('status')!r}, not up")
    return st


def lab_variant(name: str, lab_nodes: set[str]) -> Callable[[FabricModel | ClusterModel, list[Artifact]], Variant]:
    """A function (model, artifacts) -> Variant with the files each lab node really holds."""

    def variant(model: FabricModel | ClusterModel, artifacts: list[Artifact]) -> Variant:
        if isinstance(model, ClusterModel) and model.networks:  # as `lab up` built it: every network's devices
            plan = build_cluster_plan(model, artifacts, name)
            devices = [sw.name for sw in model.all_switches()] + [s.name for _, f in model.fabrics() for s in f.servers]
        else:
            fabric = model.compute if isinstance(model, ClusterModel) else model
            plan = build_plan(fabric, artifacts, name)
            devices = [sw.name for sw in fabric.switches] + [s.name for s in fabric.servers]
        files: dict[str, dict[str, Artifact]] = {}
        inert: dict[str, set[str]] = {}
        for dev, node in plan.nodes.items():
            if dev not in lab_nodes:
                continue
            files[dev] = {"/" + rel: Artifact(dev, rel, text, node.mode(rel), node.owner(rel)) for rel, text in node.files.items()}
            inert[dev] = {"/" + rel for rel in node.inert}
        skip = {dev: f"not in lab {name}" for dev in devices if dev not in lab_nodes}
        return Variant(files=files, inert=inert, skip=skip)

    return variant


def lab_access(name: str) -> tuple[Access, Credentials]:
    st = _state(name)
    mgmt_ns = f"na-{name}-mgmt"
    if not (Path("/run/netns") / mgmt_ns).exists():
        raise NetautoError(f"lab {name}: management namespace {mgmt_ns} is missing (is the lab up?)")
    ssh = lab_dir(name) / "ssh"
    key, known = ssh / "id_ed25519", ssh / "known_hosts"
    for f in (key, known):
        if not f.exists():
            raise NetautoError(f"lab {name}: {f} is missing (was it started with --ssh?)")
    addresses = {dev: ip_of(n["mgmt_address"]) for dev, n in st["nodes"].items() if n.get("mgmt_address")}
    access = Access(addresses=addresses, netns=mgmt_ns, port=22, user="root",
                    variant=lab_variant(name, set(st["nodes"])), guard=f"/etc/{NODE_MARKER}",
                    sonic_frr_container=None, cumulus_mode="linux-files", fabric=st.get("fabric"))
    return access, Credentials(key_file=key, password=None, known_hosts=known, check_host_keys=True)
