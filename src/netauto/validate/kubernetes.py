"""Validation of the Kubernetes manifests (`<fabric>/kubernetes/`), read back from the files: each rule proves one
link of the chain switch -> NIC -> VF -> pod against the model the switches and hosts are rendered from.

  K8S-01 every manifest passes its CRD's OpenAPI schema (netauto.validate.k8s_schemas, k8s_crds); built-in kinds pass
         Kubernetes' own schema (kubernetes-validate); the kustomization lists exactly the manifests
  K8S-02 one network per rail, on that rail's VF resource, and an SR-IOV policy for that resource on every profile
  K8S-03 MTU chain: VF MTU <= the PF's (policy) MTU <= the hosts' MTU <= the leaf's server-port MTU
  K8S-04 pod ranges: inside the rail's leaf subnet, gateway and routes the host's, disjoint from every host and
         switch address and from each other (netauto.validate.k8s_ranges)
  K8S-05 NIC QoS: the NIC template's trust, PFC priorities, ECN priority and ToS equal the switches' (model) and
         the host units' (their rendered netauto-roce-qos.sh, read back with formats.host)
  K8S-06 PF selection: the policies' and NIC templates' PCI addresses and PF names are the server profiles'
  K8S-07 adaptive routing: the pods' NCCL setting equals the switches' and the hosts' (their /etc/nccl.conf)
  K8S-08 the pods' other NCCL settings (NCCL_IB_TC, ROCE_VERSION_NUM, ADDR_FAMILY, ADDR_RANGE, HCA) equal the hosts'
  K8S-09 pod routing: no rail network hands the pod a default route (a SpiderIPPool `gateway`), and every rail
         network's CNI chain ends in `sbr` (source routing per rail) with no second route owner (coordinator)
  K8S-10 one owner per NIC firmware setting: a NicConfigurationTemplate sets (operator roceOptimized values, then
         rawNvConfig) exactly the fabric's firmware values, and the host script (netauto-nic-firmware.sh) of the
         same profile sets none of them
  K8S-11 (warning) attach: pf where VFs would work (leaf-subnet rails): the pod takes the NIC out of the host's
         view (host counters stop, the link flaps at every pod start); attach: vf keeps the PF in the host

Not verified here (no API server): CEL rules (x-kubernetes-validations), admission webhooks, the operators' runtime.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from netauto.model.cluster import ClusterModel
from netauto.model.kubernetes import FOLDER, TRUST, KubernetesModel, rails_by_profile
from netauto.model.kubernetes_planes import parse_resource
from netauto.model.types import Rail
from netauto.validate.plane_mode import spectrum_x
from netauto.formats import cni_networks, device_json, fastyaml
from netauto.formats.host import HostQos, parse_firmware_script, parse_nccl, parse_roce_script
from netauto.platforms import host as host_files
from netauto.platforms import nics
from netauto.render import kubernetes as names
from netauto.validate.files import FileSet
from netauto.validate.findings import CHECKS, Finding
from netauto.validate.k8s_ranges import check_ranges
from netauto.validate.k8s_shape import off_shape
from netauto.validate.k8s_schemas import check_schemas
from netauto.validate.k8s_tenants import check_tenants
from netauto.validate.k8s_tenants import label as _label

K8S_CHECKS = {
    "K8S-01": "a Kubernetes manifest fails its CRD's OpenAPI schema or Kubernetes' schema (built-in kinds), or the "
              "kustomization does not list exactly the manifests",
    "K8S-02": "not exactly one network per rail (per tenant namespace) on that rail's VF resource, a profile without "
              "the rail's policy, or a tenant's network or pool serving another tenant's nodes or namespace",
    "K8S-03": "MTU chain broken: VF MTU > PF (policy) MTU > host MTU > leaf server-port MTU",
    "K8S-04": "a pod range outside its rail's leaf subnet, with another gateway/routes than the host's, or "
              "overlapping a host or switch address or another pod range",
    "K8S-05": "NIC template QoS (trust, PFC, ECN priority, ToS) differs from the switches' and hosts'",
    "K8S-06": "an SR-IOV policy or NIC template selects other PCI addresses or PF names than the server profile's",
    "K8S-07": "adaptive routing for pods (NCCL_IB_ADAPTIVE_ROUTING) differs from the switches' and hosts'",
    "K8S-08": "an NCCL setting for pods (traffic class, RoCE version, GID selection, HCAs) differs from the hosts' "
              "/etc/nccl.conf",
    "K8S-10": "a NIC firmware setting with two owners (NicConfigurationTemplate and netauto-nic-firmware.sh), or a "
              "template whose effective firmware values (operator roceOptimized + rawNvConfig) are not the fabric's",
    "K8S-11": "attach: pf on leaf-subnet rails, where VFs would work: while a pod holds a rail NIC the host sees no "
              "counters of it and its link flaps at every pod start (prefer attach: vf)",
    "K8S-09": "a rail network gives pods a default route (SpiderIPPool gateway) or does not source-route its rail "
              "(no sbr in its CNI chain, or Spiderpool's coordinator beside it)",
}
CHECKS.update(K8S_CHECKS)
NCCL_SHARED = ("NCCL_IB_TC", "NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE", "NCCL_IB_HCA")
K8S_OVERHEAD = 0  # leaf server ports are untagged access/routed ports: the Linux MTU on both ends is the IP MTU


def _docs(files: FileSet, path: str) -> Iterator[dict[str, Any]]:
    """The mappings of a manifest, read as every rendered YAML (`validate --configs` trees are input: no aliases,
    bounded depth; raises yaml.YAMLError)."""
    text = files.get(FOLDER, path)
    if text:
        yield from (d for d in fastyaml.load_all(text) if isinstance(d, dict))


class _Check:
    def __init__(self, cluster: ClusterModel, k8s: KubernetesModel, files: FileSet) -> None:
        self.cluster, self.k8s, self.files = cluster, k8s, files
        self.found: list[Finding] = []
        self.by_file: dict[str, list[dict[str, Any]]] = {}
        for d, p in files.paths():
            if d == FOLDER and p.endswith(".yaml"):
                try:
                    self.by_file[p] = [doc for doc in _docs(files, p) if self._shaped(p, doc)]
                except yaml.YAMLError as exc:
                    self.err("K8S-01", p, f"not readable as YAML: {' '.join(str(exc).split())[:300]}")

    def _shaped(self, path: str, doc: dict[str, Any]) -> bool:
        """Every value the rules read has its type (validate.k8s_shape), else one K8S-01 finding naming the file and
        the document, which the rules then do not read."""
        wrong = off_shape(doc)
        if wrong:
            meta = doc.get("metadata")
            name = f"{doc.get('kind')}/{meta.get('name') if isinstance(meta, dict) else None}"
            self.err("K8S-01", path, f"{name[:120]}: {wrong} (a value of the wrong type where the K8S rules read; "
                     "fix: write it as netauto renders it)")
        return not wrong

    def err(self, rule: str, path: str, message: str) -> None:
        self.found.append(Finding(rule, "error", FOLDER, message, path))

    def kind(self, kind: str) -> Iterator[tuple[str, dict[str, Any]]]:
        for path, docs in self.by_file.items():
            for doc in docs:
                if doc.get("kind") == kind:
                    yield path, doc

    # ------------------------------------------------------------ K8S-02 / K8S-03
    def _plugins(self, path: str, doc: dict[str, Any]) -> list[dict[str, Any]]:
        """The network's CNI chain; an unreadable one is a finding, never a traceback."""
        try:
            return [p for p in cni_networks.plugins(doc) if isinstance(p, dict)]
        except cni_networks.NetworkFormatError as exc:
            self.err("K8S-09", path, f"{_label(doc)}: CNI config unreadable: {exc}")
            return []

    def _network_of(self, doc: dict[str, Any]) -> tuple[str, int | None]:
        spec = doc.get("spec") or {}
        if doc.get("kind") == "SpiderMultusConfig":
            return cni_networks.resource(doc), (spec.get("sriov") or {}).get("mtu")
        try:
            chain = cni_networks.plugins(doc)
        except cni_networks.NetworkFormatError:
            chain = []  # K8S-09 reports it
        mtu = next((p.get("mtu") for p in chain if isinstance(p, dict) and p.get("type") == "tuning"), None)
        return cni_networks.resource(doc), mtu

    def _nets(self) -> list[tuple[str, dict[str, Any]]]:
        return [pd for kind in cni_networks.NETWORK_KINDS for pd in self.kind(kind)]

    def attach_mode(self) -> None:
        if self.k8s.settings.attach == "pf" and any(sw.svi for sw in self.cluster.compute.switches):
            self.found.append(Finding("K8S-11", "warning", FOLDER, "attach: pf on leaf-subnet rails: a pod takes each "
                                      "rail NIC out of the host's view (no host counters, a link flap at every pod "
                                      "start); VFs fit here (kubernetes.attach: vf)", names.NETWORKS))

    def firmware_owner(self) -> None:
        rails = rails_by_profile(self.cluster.compute)
        label = self.k8s.settings.profile_label
        for path, doc in self.kind("NicConfigurationTemplate"):
            spec = doc.get("spec") or {}
            prof = str((spec.get("nodeSelector") or {}).get(label))
            server = next((s for s in self.cluster.compute.servers if s.profile == prof), None)
            kind = next((r.kind for r in rails.get(prof, {}).values()
                         if nics.pci_device_id(r.kind) == (spec.get("nicSelector") or {}).get("nicType")), None)
            if server is None or kind is None:
                continue  # K8S-06 names the selection
            want = nics.firmware(kind, roce_priority=server.qos.roce_priority, cnp_dscp=server.qos.cnp_dscp,
                                 cnp_priority=server.qos.cnp_priority, ar=server.adaptive_routing)
            raw = tuple(nics.FirmwareParam(str(r.get("name")), int(str(r.get("value"))))
                        for r in (spec.get("template") or {}).get("rawNvConfig") or [] if str(r.get("value")).isdigit())
            have = nics.operator_firmware(raw)
            for p in want:
                if p.name in have and have[p.name] != p.value:
                    self.err("K8S-10", path, f"{_label(doc)}: the operator sets {p.name}={have[p.name]}, the fabric "
                             f"needs {p.value} (rawNvConfig)")
                elif p.name not in have and p.name not in nics.operator_template_params():
                    self.err("K8S-10", path, f"{_label(doc)}: nobody sets {p.name}={p.value} (rawNvConfig)")
            script = self.files.get(server.name, host_files.FIRMWARE)
            both = sorted(set((parse_firmware_script(script).get(kind) or {}) if script else {}) & set(have))
            if both:
                self.err("K8S-10", path, f"{_label(doc)}: {', '.join(both)} also set by {server.name}'s "
                         f"{host_files.FIRMWARE}: two owners (kubernetes.nic_config picks one)")

    def routing(self) -> None:
        for path, doc in self.kind("SpiderIPPool"):
            gw = (doc.get("spec") or {}).get("gateway")
            if gw is not None:
                self.err("K8S-09", path, f"{_label(doc)}: gateway {gw} becomes each pod's default route out of this "
                         "rail (Spiderpool docs/usage/route.md); remove it, the rail's routes carry the fabric")
        for path, doc in self._nets():
            types = [str(p.get("type")) for p in self._plugins(path, doc)]
            if "sbr" not in types or "coordinator" in types:
                self.err("K8S-09", path, f"{_label(doc)}: CNI chain {types} does not source-route the rail (want "
                         "sbr chained, no coordinator)")

    def networks(self) -> None:
        nets = self._nets()
        policies = list(self.kind("SriovNetworkNodePolicy"))
        plugin = {str(r.get("resourceName")) for r in self._device_plugin_resources()}
        pf_mtu: dict[str, list[int]] = {}
        for _, doc in policies:
            spec = doc.get("spec") or {}
            pf_mtu.setdefault(str(spec.get("resourceName")), []).append(int(spec.get("mtu") or 0))
        profiles = {p for _, p in self.k8s.nodes}
        for n in self.k8s.networks:
            mine = [(path, d) for path, d in nets if self._network_of(d)[0] == n.resource_name]
            want = len(self.k8s.tenants) or 1  # with tenants: one per tenant namespace (validate.k8s_tenants)
            if len(mine) != want:
                self.err("K8S-02", names.NETWORKS, f"rail {n.rail}: {len(mine)} networks use resource "
                         f"{n.resource_name} ({', '.join(_label(d) for _, d in mine) or 'none'}); want "
                         f"{'exactly one' if want == 1 else f'{want}, one per tenant'}")
            if self.k8s.settings.attach == "pf":
                if n.resource_name not in plugin:
                    self.err("K8S-02", names.DEVICE_PLUGIN, f"rail {n.rail}: the NicClusterPolicy's device plugin "
                             f"has no resource {n.resource_name}")
                continue
            covered = {str(((d.get("spec") or {}).get("nodeSelector") or {}).get(self.k8s.settings.profile_label))
                       for _, d in policies if (d.get("spec") or {}).get("resourceName") == n.resource_name}
            for prof in sorted(profiles - covered):
                self.err("K8S-02", names.POLICIES, f"rail {n.rail}: no SriovNetworkNodePolicy gives resource "
                         f"{n.resource_name} on profile {prof}")
            host = self.k8s.host_mtu[n.rail]
            port = self._leaf_port_mtu(n.rail)
            if port is not None and host > port - K8S_OVERHEAD:
                self.err("K8S-03", names.NETWORKS, f"rail {n.rail}: host MTU {host} is above the leaf port MTU {port}")
            for path, d in mine:
                vf = self._network_of(d)[1]
                if vf is not None and any(vf > m for m in pf_mtu.get(n.resource_name, [])):
                    self.err("K8S-03", path, f"{_label(d)}: VF MTU {vf} is above the PF MTU "
                             f"{min(pf_mtu[n.resource_name])} of resource {n.resource_name}")
            for path, d in policies:
                spec = d.get("spec") or {}
                if spec.get("resourceName") == n.resource_name and int(spec.get("mtu") or 0) > host:
                    self.err("K8S-03", path, f"{_label(d)}: PF MTU {spec.get('mtu')} is above the hosts' rail "
                             f"{n.rail} MTU {host}")

    def _device_plugin_resources(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for _, doc in self.kind("NicClusterPolicy"):
            config = (((doc.get("spec") or {}).get("sriovDevicePlugin") or {}).get("config")) or "{}"
            out += device_json.loads(config).get("resourceList") or []  # its shape: validate.k8s_shape
        return out

    def _leaf_port_mtu(self, rail: int) -> int | None:
        servers = {s.name for s in self.cluster.compute.servers}
        mtus = [i.mtu for sw in self.cluster.compute.switches if sw.rail == rail for i in sw.interfaces
                if i.peer_device in servers]
        return min(mtus) if mtus else None

    # ------------------------------------------------------------ K8S-05 / K8S-06 / K8S-07
    def _host_qos(self, profile: str) -> HostQos | None:
        """What the host units of a server of `profile` set: its rendered netauto-roce-qos.sh, read back."""
        for server in self.cluster.compute.servers:
            text = self.files.get(server.name, host_files.COMPUTE.qos_script) if server.profile == profile else None
            if text:
                return parse_roce_script(text)
        return None

    def nic_qos(self) -> None:
        """The template against the switches' QoS (model) and the host units' script (the rendered file)."""
        leaves = [sw for sw in self.cluster.compute.switches if sw.role == "leaf"]
        sw_qos = leaves[0].qos if leaves else self.cluster.compute.servers[0].qos
        for path, doc in self.kind("NicConfigurationTemplate"):
            if spectrum_x(doc) and self.cluster.compute_planes:  # the Spectrum-X profile sets the NIC's QoS; CPLANE-03
                # checks the template's plane block
                continue
            profile = str(((doc.get("spec") or {}).get("nodeSelector") or {}).get(self.k8s.settings.profile_label))
            host = self._host_qos(profile)
            qos = (((doc.get("spec") or {}).get("template") or {}).get("roceOptimized") or {}).get("qos") or {}
            bitmap = ",".join(map(str, host.pfc_bitmap)) if host and host.pfc_bitmap else None
            checks = [("trust", qos.get("trust"), TRUST, host.trust if host else None),
                      ("pfc", qos.get("pfc"), sw_qos.pfc_bitmap, bitmap),
                      ("ecn.priority", (qos.get("ecn") or {}).get("priority"), sw_qos.roce_priority,
                       host.ecn_priorities[0] if host and len(host.ecn_priorities) == 1 else None),
                      ("tos", qos.get("tos"), sw_qos.host_tos, host.roce_tos if host else None)]
            for key, have, switches, hosts in checks:
                if have != switches or have != hosts:
                    self.err("K8S-05", path, f"{_label(doc)}: qos.{key} is {have!r}; the switches set {switches!r}, "
                             f"the host units ({host_files.COMPUTE.qos_script}) {hosts!r}")

    def _rails(self, resource: str) -> dict[str, dict[int, Rail]]:
        """profile -> rail -> NIC port on the compute plane a resource (`rail<r>` or `rail<r>p<p>`) is on."""
        found = parse_resource(resource)
        fabrics = self.cluster.compute_fabrics()
        plane = found[1] if found else 1
        return rails_by_profile(fabrics[plane - 1]) if 1 <= plane <= len(fabrics) else {}

    def pci(self) -> None:
        label = self.k8s.settings.profile_label
        for path, doc in self.kind("SriovNetworkNodePolicy"):
            spec = doc.get("spec") or {}
            prof = str((spec.get("nodeSelector") or {}).get(label))
            found = parse_resource(str(spec.get("resourceName")))
            rail = self._rails(str(spec.get("resourceName"))).get(prof, {}).get(found[0] if found else -1)
            sel = spec.get("nicSelector") or {}
            if rail is None:
                self.err("K8S-06", path, f"{_label(doc)}: profile {prof} has no NIC for {spec.get('resourceName')}")
                continue
            if sel.get("pfNames") != [rail.nic] or (rail.pci and sel.get("rootDevices") != [rail.pci]):
                self.err("K8S-06", path, f"{_label(doc)}: selects PF {sel.get('pfNames')} at {sel.get('rootDevices')}"
                         f", profile {prof} has rail {rail.index} NIC {rail.nic} at {rail.pci}")
        for res in self._device_plugin_resources():
            found = parse_resource(str(res.get("resourceName", "")))
            index = str(found[0]) if found else ""
            sel = res.get("selectors") or {}
            nics_ = [r for rs in self._rails(str(res.get("resourceName"))).values() for r in rs.values()
                     if str(r.index) == index]
            have, want_pci = set(sel.get("pciAddresses") or []), {r.pci for r in nics_ if r.pci}
            if (have and have != want_pci) or (not have and set(sel.get("pfNames") or []) != {r.nic for r in nics_}):
                self.err("K8S-06", names.DEVICE_PLUGIN, f"NicClusterPolicy/{names.NIC_CLUSTER_POLICY}: resource "
                         f"{res.get('resourceName')} selects {sorted(have) or sel.get('pfNames')}, the profiles' rail "
                         f"{index} NICs are {sorted(want_pci) or sorted(r.nic for r in nics_)}")
        planes = [rails_by_profile(fab) for fab in self.cluster.compute_fabrics()]  # every plane port's PF
        for path, doc in self.kind("NicConfigurationTemplate"):
            spec = doc.get("spec") or {}
            prof = str((spec.get("nodeSelector") or {}).get(label))
            want = {r.pci for rails in planes for r in rails.get(prof, {}).values() if r.pci}
            have = set((spec.get("nicSelector") or {}).get("pciAddresses") or [])
            if not have or not have <= want:
                self.err("K8S-06", path, f"{_label(doc)}: PCI addresses {sorted(have - want) or '[]'} are not "
                         f"rail NICs of profile {prof}")

    def adaptive_routing(self) -> None:
        """The pods' NCCL setting against the switches' AR (model) and the hosts' rendered /etc/nccl.conf."""
        switches = {sw.adaptive_routing for sw in self.cluster.compute.switches}
        hosts = {parse_nccl(text).get("NCCL_IB_ADAPTIVE_ROUTING") for s in self.cluster.compute.servers
                 if (text := self.files.get(s.name, host_files.NCCL))}
        for path, doc in self.kind("ConfigMap"):
            have = (doc.get("data") or {}).get("NCCL_IB_ADAPTIVE_ROUTING")
            if have is None:
                continue
            if {have == "1"} != switches or hosts != {have}:
                self.err("K8S-07", path, f"{_label(doc)}: NCCL_IB_ADAPTIVE_ROUTING={have}; switches "
                         f"{'on' if True in switches else 'off'}, hosts' {host_files.NCCL} {sorted(map(str, hosts))}")

    def nccl(self) -> None:
        confs = [parse_nccl(text) for s in self.cluster.compute.servers if (text := self.files.get(s.name, host_files.NCCL))]
        for path, doc in self.kind("ConfigMap"):
            data = doc.get("data") or {}
            for key in NCCL_SHARED:
                if key not in data and key != "NCCL_IB_HCA":
                    self.err("K8S-08", path, f"{_label(doc)}: {key} is missing (the hosts set it)")
                    continue
                hosts = sorted({c[key] for c in confs if key in c})
                if key in data and hosts and data[key] not in hosts:
                    self.err("K8S-08", path, f"{_label(doc)}: {key}={data[key]}, the hosts' {host_files.NCCL} has "
                             f"{', '.join(hosts)}")


def check_kubernetes(cluster: ClusterModel, files: FileSet, crd_dir: Path | None) -> tuple[list[Finding], list[str]]:
    """K8S-01..11 on the kubernetes/ files of `files` (nothing when the inventory has no `kubernetes:`)."""
    if cluster.kubernetes is None:
        return [], []
    check = _Check(cluster, cluster.kubernetes, files)
    notes = check_schemas(check.by_file, crd_dir, check.err)
    rules: list[Callable[[], None]] = [
        check.networks, lambda: check_ranges(cluster, check.k8s, check.kind, check.err), check.nic_qos, check.pci,
        check.adaptive_routing, check.nccl, check.routing, check.firmware_owner, check.attach_mode,
        lambda: check_tenants(check.k8s, check.kind, check.err)]
    for rule in rules:  # the documents they read have their shape (_shaped): an error here is netauto's own
        rule()
    return check.found, notes
