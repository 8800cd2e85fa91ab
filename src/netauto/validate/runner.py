"""Validation of a resolved cluster and its files: parse back, rules, real validators, route simulation.

The library takes data (model + artifacts, or a FileSet read from a configs folder); rendering is the
pipeline's (`netauto.pipeline.validate` composes both for a path)."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterable
from fnmatch import fnmatchcase
from dataclasses import dataclass, field
from pathlib import Path

from netauto import diffstat
from netauto.model.cluster import ClusterModel
from netauto.model.kubernetes import FOLDER as K8S_FOLDER
from netauto.monitoring.render import MONITORING_DEVICE
from netauto.model.types import FabricModel
from netauto.platforms import host
from netauto.platforms.nos import cumulus_path, sonic_path
from netauto.render.engine import Artifact
from netauto.render.output import compare_tree, write_tree
from netauto.validate.files import FileSet
from netauto.validate import clean_cache
from netauto.validate.findings import Finding
from netauto.validate.oob import check_oob
from netauto.validate.planes import check_planes
from netauto.validate.rules import run_rules
from netauto.validate.view import ParsedFabric, build_view, gc_paused

SONIC_DB = sonic_path("config_db")
# the executables behind each check (their identity is part of the clean-run cache's keys: validate/clean_cache.py)
CHECK_TOOLS = {
    "frr": ("vtysh", "bgpd"),
    "ifupdown2": ("ifup",),
    "netplan_generate": ("netplan", "/usr/libexec/netplan/generate", "/usr/lib/netplan/generate"),
    "host_tools.systemd_units": ("systemd-analyze",),
    "host_tools.shell_scripts": ("sh", "shellcheck"),
}

EXTERNAL_CHECKS = (  # (tool label, on-device path, function name in netauto.validate.external)
    ("frr (vtysh --dryrun + bgpd -C)", cumulus_path("frr"), "frr"),
    ("frr on SONiC (vtysh --dryrun + bgpd -C)", sonic_path("frr"), "frr"),
    ("ifupdown2 (ifup -s + keyword check)", cumulus_path("interfaces"), "ifupdown2"),
    ("netplan generate", host.COMPUTE.netplan, "netplan_generate"),
    # every network's NIC QoS units and script: the compute rails' and each lossless plane's (platforms.host)
    ("systemd-analyze verify (NIC provisioning units)", "etc/systemd/system/netauto-*-qos.service",
     "host_tools.systemd_units"),
    ("sh -n + shellcheck when installed (RoCE QoS script)", "usr/local/sbin/netauto-*-qos.sh", "host_tools.shell_scripts"),
    ("sh -n + shellcheck when installed (NIC firmware script)", "usr/local/sbin/netauto-nic-firmware.sh",
     "host_tools.shell_scripts"),
    ("sh -n + shellcheck when installed (RoCE counters script)", "usr/local/sbin/netauto-roce-counters.sh",
     "host_tools.shell_scripts"),
    ("systemd-analyze verify (RoCE counters units)", "etc/systemd/system/netauto-roce-counters.*", "host_tools.systemd_units"),
    # the monitoring/ folder: promtool check rules + promtool test rules (the unit tests rendered beside them)
    ("promtool check rules + test rules (monitoring)", "prometheus/*.rules.yml", "promtool.rules"),
)


@dataclass
class Result:
    fabric: str
    source: str  # "rendered from <inventory>" or the --configs folder
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # skipped validators, simulation summary
    timings: dict[str, float] = field(default_factory=dict)
    devices: int = 0
    files: int = 0
    sim: object | None = None
    checked: FileSet | None = field(default=None, repr=False)  # the files checked (rendered or read back)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def exit_code(self, strict: bool = False) -> int:
        if self.count("error") or (strict and self.count("warning")):
            return 1
        return 0


def _drift(artifacts: Iterable[Artifact], fdir: Path) -> list[Finding]:
    diff = compare_tree(artifacts, fdir)
    found = []
    for rel, text in diff.changed.items():
        device, path = rel.split("/", 1)
        found.append(Finding("DRIFT-01", "warning", device, f"differs from intent ({diffstat.summary(text)})", path))
    for rel in diff.missing:
        device, path = rel.split("/", 1)
        found.append(Finding("DRIFT-01", "error", device, "file missing from the configs tree", path))
    for rel in diff.extra:
        device, path = rel.split("/", 1)
        found.append(Finding("DRIFT-01", "warning", device, "file not rendered from intent (extra)", path))
    return found


def run_external(root: Path, files: FileSet, *, yang_models: Path | None = None) -> tuple[list[Finding], list[str]]:
    """The real validators (owned by `netauto.validate.external`), on the files under `root` (a fabric folder)."""
    try:
        from netauto.validate import external
    except ImportError:  # HOOK: the wrappers module is not there yet
        return [], ["skipped: real validators (netauto.validate.external not installed)"]
    findings: list[Finding] = []
    notes: list[str] = []
    paths = list(files.paths())
    digests = clean_cache.DeviceDigests(files)
    for label, rel, fn_name in EXTERNAL_CHECKS:
        if "*" in rel:
            refs = [(dev, root / dev / p) for dev, p in paths if fnmatchcase(p, rel)]
        else:
            refs = [(dev, root / dev / rel) for dev in files.devices() if files.get(dev, rel) is not None]
        if not refs:
            continue
        if "." in fn_name:  # a checker of another module of netauto.validate ("host_tools.systemd_units")
            import importlib

            module, _, attr = fn_name.partition(".")
            fn = getattr(importlib.import_module(f"netauto.validate.{module}"), attr, None)
        else:
            fn = getattr(external, fn_name, None)
        if fn is None:
            notes.append(f"skipped: {label} (external.{fn_name} missing)")
            continue
        try:
            tool_findings, cached = clean_cache.run_cached(label, CHECK_TOOLS.get(fn_name, ()), fn, refs, digests)
        except external.ToolMissing as exc:
            notes.append(f"skipped: {exc}")
            continue
        except Exception as exc:  # noqa: BLE001 - a broken tool must not hide the other checks
            notes.append(f"skipped: {label} failed to run ({exc})")
            continue
        skipped = f" ({cached} unchanged since a clean run: cached)" if cached else ""
        notes.append(f"ran: {label} on {len(refs) - cached} file(s){skipped}")
        for tf in tool_findings:
            path = Path(tf.path)
            try:
                path_rel = path.relative_to(root / tf.device).as_posix()
            except ValueError:
                path_rel = str(path)
            findings.append(Finding(f"EXT-{tf.tool}", "error", tf.device, tf.message, path_rel, tf.line))
    plane_netplans = [(dev, root / dev / p) for dev, p in files.paths() if p.startswith("etc/netplan/61-")]
    if plane_netplans and getattr(external, "netplan_generate", None) is not None:
        try:
            plane_findings, cached = clean_cache.run_cached("netplan generate (plane files)",
                                                            CHECK_TOOLS["netplan_generate"],
                                                            external.netplan_generate, plane_netplans, digests)
            for tf in plane_findings:
                findings.append(Finding("EXT-netplan", "error", tf.device, tf.message,
                                        Path(tf.path).relative_to(root / tf.device).as_posix(), tf.line))
            skipped = f" ({cached} unchanged since a clean run: cached)" if cached else ""
            notes.append(f"ran: netplan generate on {len(plane_netplans) - cached} plane file(s){skipped}")
        except external.ToolMissing as exc:
            notes.append(f"skipped: {exc}")
    sonic = [dev for dev in files.devices() if files.get(dev, SONIC_DB) is not None]
    if yang_models is None and sonic:
        notes.append(f"skipped: yanglint on {len(sonic)} SONiC config_db.json (give --sonic-yang DIR or run scripts/get-sonic-yang-models)")
    if yang_models is not None:
        try:
            from netauto.validate import sonic_yang
        except ImportError:
            sonic_yang = None  # type: ignore[assignment]
        if sonic and sonic_yang is not None and hasattr(sonic_yang, "check_config_dbs"):
            import json

            try:
                dbs = {dev: json.loads(files.get(dev, SONIC_DB) or "{}") for dev in sonic}
                for dev, errors in sonic_yang.check_config_dbs(dbs, yang_models).items():
                    for msg in errors:
                        findings.append(Finding("EXT-yanglint", "error", dev, msg, SONIC_DB))
                notes.append(f"ran: yanglint on {len(sonic)} config_db.json")
            except Exception as exc:  # noqa: BLE001 - SonicYangError (no yanglint, bad models dir) and friends
                notes.append(f"skipped: yanglint ({exc})")
        elif not sonic:
            notes.append("skipped: yanglint (no SONiC switch in this fabric)")
    return findings, notes


def validate_cluster(cluster: ClusterModel, artifacts: list[Artifact], *, configs: FileSet | None = None,
                     external: bool = True, simulate: bool = True, drain: list[str] | None = None,
                     yang_models: Path | None = None, source: str | None = None) -> Result:
    """Check a resolved cluster: the rules, the real validators and the route simulation on its files.

    `artifacts` are the files rendered from `cluster` (the intent). Without `configs` they are what is
    checked; with `configs` (a rendered tree read back, `FileSet.from_dir`) that tree is checked and every
    difference from `artifacts` is a DRIFT-01 finding. Compose with `netauto.pipeline` (build, render).
    """
    model = cluster.compute
    t1 = time.perf_counter()
    findings: list[Finding] = []
    if configs is not None:
        if configs.root is None:
            raise ValueError("configs: a FileSet read from a folder (FileSet.from_dir)")
        fdir: Path | None = configs.root
        files = configs
        findings += _drift(artifacts, configs.root)
        source = source or str(configs.root)
    else:
        fdir = None
        files = FileSet.from_artifacts(artifacts)
        source = source or f"rendered from the model of {model.name}"
    devices = [d for d in files.devices() if d not in (K8S_FOLDER, MONITORING_DEVICE)]  # folders beside the devices
    result = Result(model.name, source, devices=len(devices), files=len(files.paths()), checked=files)
    view: ParsedFabric = build_view(model, files)
    result = _check(view, model, artifacts, files, fdir, findings, result, t1,
                    external=external, simulate=simulate, drain=drain, yang_models=yang_models)
    if cluster.planes or cluster.oob:
        t5 = time.perf_counter()
        more, notes = check_planes(cluster, view, files, simulate=simulate, drain=drain)
        if cluster.oob:
            more += check_oob(cluster, files)
            notes.append(f"ran: NVUE-01, CONS-01 and OOB-01..04 on the {len(cluster.oob.switches)} OOB switches")
        result.findings = sorted(result.findings + more, key=Finding.sort_key)
        result.notes += notes
        result.timings["planes"] = time.perf_counter() - t5
    if cluster.kubernetes:
        from netauto.validate.k8s_crds import find_crds
        from netauto.validate.kubernetes import check_kubernetes

        more, notes = check_kubernetes(cluster, files, find_crds(dev=True)[0])  # K8S-01..08
        result.findings = sorted(result.findings + more, key=Finding.sort_key)
        result.notes += notes
    return result


def _check(view: ParsedFabric, model: FabricModel, artifacts: list[Artifact], files: FileSet, fdir: Path | None,  # noqa: PLR0913
           findings: list[Finding], result: Result, t1: float, *, external: bool, simulate: bool,
           drain: list[str] | None, yang_models: Path | None) -> Result:
    t2 = time.perf_counter()
    findings += view.problems
    with gc_paused():  # the parsed fabric is large: no collection passes over it while the rules allocate
        findings += run_rules(view)
    t3 = time.perf_counter()
    result.timings.update(parse=t2 - t1, rules=t3 - t2)
    if external:
        if fdir is None:
            with tempfile.TemporaryDirectory(prefix="netauto-validate-") as tmp:
                root = Path(tmp) / model.name
                write_tree(artifacts, root, manifest=False)
                ext, notes = run_external(root, files, yang_models=yang_models)
        else:
            ext, notes = run_external(fdir, files, yang_models=yang_models)
        findings += ext
        result.notes += notes
        result.timings["external"] = time.perf_counter() - t3
    else:
        result.notes.append("skipped: real validators (--no-external)")
    if simulate:
        from netauto.validate import routesim

        t4 = time.perf_counter()
        with gc_paused():
            sim = routesim.simulate(view, drain=drain or [])
        findings += sim.findings
        result.notes += sim.notes
        result.sim = sim
        result.timings["routesim"] = time.perf_counter() - t4
    result.findings = sorted(findings, key=Finding.sort_key)
    return result
