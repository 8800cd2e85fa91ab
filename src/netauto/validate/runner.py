"""Validation of a resolved cluster and its files: parse back, rules, real validators, route simulation.

The library takes data (model + artifacts, or a FileSet read from a configs folder); rendering is the
pipeline's (`netauto.pipeline.validate` composes both for a path)."""

from __future__ import annotations

import importlib
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from fnmatch import fnmatchcase
from dataclasses import dataclass, field
from pathlib import Path
import json

from netauto import diffstat
from netauto.model.cluster import ClusterModel
from netauto.model.folders import device_folders
from netauto.model.types import FabricModel
from netauto.platforms import host
from netauto.platforms.nos import cumulus_path, sonic_path
from netauto.render.engine import Artifact
from netauto.render.compare import compare_tree
from netauto.render.tree_files import write_files
from netauto.validate.files import FileSet
from netauto.validate import clean_cache, sonic_yang
from netauto.validate import external as wrappers  # `external` is validate_cluster's switch
from netauto.validate.findings import Finding
from netauto.validate.oob import check_oob
from netauto.validate.compute_planes import check_compute_planes, plane_hca
from netauto.validate.networks import check_networks
from netauto.validate.fabric_run import rules_and_simulation
from netauto.validate.view import ParsedFabric, build_view, gc_paused
from netauto.validate.k8s_crds import find_crds
from netauto.validate.kubernetes import check_kubernetes
from netauto.validate.processes import memory_tmp

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
    # every network's NIC QoS units and script: the compute rails' and each lossless network's (platforms.host)
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


@dataclass
class _Job:
    """One real validator's run: its label (for the notes), tools (cache key), checker and files."""

    label: str
    tools: tuple[str, ...]
    fn: Callable[..., list[Finding]]
    refs: list[tuple[str, Path]]
    unit: str = "file(s)"


def _checker(fn_name: str) -> Callable[..., list[Finding]]:
    if "." in fn_name:  # a checker of another module of netauto.validate ("host_tools.systemd_units")
        module, _, attr = fn_name.partition(".")
        return getattr(importlib.import_module(f"netauto.validate.{module}"), attr)
    return getattr(wrappers, fn_name)


def _jobs(root: Path, files: FileSet) -> list[_Job]:
    paths = list(files.paths())
    jobs = []
    for label, rel, fn_name in EXTERNAL_CHECKS:
        if "*" in rel:
            refs = [(dev, root / dev / p) for dev, p in paths if fnmatchcase(p, rel)]
        else:
            refs = [(dev, root / dev / rel) for dev in files.devices() if files.get(dev, rel) is not None]
        if not refs:
            continue
        jobs.append(_Job(label, CHECK_TOOLS.get(fn_name, ()), _checker(fn_name), refs))
    network_netplans = [(dev, root / dev / p) for dev, p in paths if p.startswith("etc/netplan/61-")]
    if network_netplans:
        jobs.append(_Job("netplan generate (network files)", CHECK_TOOLS["netplan_generate"], wrappers.netplan_generate,
                         network_netplans, "network file(s)"))
    return jobs


class DeviceWriter:
    """Writes a device's rendered files under `root` the first time a validator needs them (thread-safe): with
    the clean-run cache warm, a validation after a one-leaf edit writes that leaf's files, not the fabric's."""

    def __init__(self, artifacts: Iterable[Artifact], root: Path) -> None:
        self.root = root
        self.by_device: dict[str, list[Artifact]] = {}
        for art in artifacts:
            self.by_device.setdefault(art.device, []).append(art)
        self.done: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, devices: Iterable[str]) -> None:
        with self.lock:
            todo = [d for d in dict.fromkeys(devices) if d not in self.done]
            self.done.update(todo)
            write_files([a for d in todo for a in self.by_device.get(d, ())], self.root)


def run_external(root: Path, files: FileSet, *, yang_models: Path | None = None,
                 prepare: Callable[[Iterable[str]], None] | None = None) -> tuple[list[Finding], list[str]]:
    """The real validators (owned by `netauto.validate.external`), on the files under `root` (a fabric folder).

    The checks run side by side, each on the files its clean-run cache does not already know (clean_cache); their
    processes share `usable_cpus()` slots (processes.process_slot), so every usable CPU stays busy until the last
    check ends. Notes and findings come back in EXTERNAL_CHECKS order, whatever order the checks finish in."""
    findings: list[Finding] = []
    notes: list[str] = []
    jobs = _jobs(root, files)
    digests = clean_cache.DeviceDigests(files)

    def run(job: _Job) -> tuple[list[Finding], int] | Exception:
        fn = job.fn
        if prepare is not None:  # the files exist on disk only once a check needs them (DeviceWriter)
            def fn(refs: Sequence[Any], check: Callable[..., list[Finding]] = job.fn) -> list[Finding]:
                prepare(dev for dev, _ in refs)
                return check(refs)
        try:
            return clean_cache.run_cached(job.label, job.tools, fn, job.refs, digests)
        except Exception as exc:  # noqa: BLE001 - a broken tool must not hide the other checks
            return exc

    yang = None
    with ThreadPoolExecutor(max_workers=max(1, len(jobs) + 1), thread_name_prefix="validator") as pool:
        futures = [pool.submit(run, job) for job in jobs]
        if yang_models is not None:
            yang = pool.submit(_yanglint, files, yang_models)
        for job, future in zip(jobs, futures):
            outcome = future.result()
            if isinstance(outcome, wrappers.ToolMissing):
                notes.append(f"skipped: {outcome}")
                continue
            if isinstance(outcome, Exception):
                notes.append(f"skipped: {job.label} failed to run ({outcome})")
                continue
            found, cached = outcome
            skipped = f" ({cached} unchanged since a clean run: cached)" if cached else ""
            notes.append(f"ran: {job.label} on {len(job.refs) - cached} {job.unit}{skipped}")
            findings += [f.on_device(root) for f in found]  # the checkers name the files under `root`
    sonic = [dev for dev in files.devices() if files.get(dev, SONIC_DB) is not None]
    if yang is None and sonic:
        notes.append(f"skipped: yanglint on {len(sonic)} SONiC config_db.json (give --sonic-yang DIR or run scripts/get-sonic-yang-models)")
    if yang is not None:
        more, yang_notes = yang.result()
        findings += more
        notes += yang_notes
    return findings, notes


def _yanglint(files: FileSet, yang_models: Path) -> tuple[list[Finding], list[str]]:
    sonic = [dev for dev in files.devices() if files.get(dev, SONIC_DB) is not None]
    if not sonic:
        return [], ["skipped: yanglint (no SONiC switch in this fabric)"]

    findings = []
    try:
        dbs = {dev: json.loads(files.get(dev, SONIC_DB) or "{}") for dev in sonic}
        for dev, errors in sonic_yang.check_config_dbs(dbs, yang_models).items():
            for msg in errors:
                findings.append(Finding("EXT-yanglint", "error", dev, msg, SONIC_DB))
    except Exception as exc:  # noqa: BLE001 - SonicYangError (no yanglint, bad models dir) and friends
        return [], [f"skipped: yanglint ({exc})"]
    return findings, [f"ran: yanglint on {len(sonic)} config_db.json"]


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
    devices = device_folders(files.devices())  # not the folders beside the devices (kubernetes/, monitoring/)
    result = Result(model.name, source, devices=len(devices), files=len(files.paths()), checked=files)
    view: ParsedFabric = build_view(model, files)
    view.plane_hca = plane_hca(cluster)
    result = _check(view, model, artifacts, files, fdir, findings, result, t1,
                    external=external, simulate=simulate, drain=drain, yang_models=yang_models)
    if cluster.compute_planes:
        more, notes = check_compute_planes(cluster, view, files, simulate=simulate, drain=drain)
        result.findings = sorted(result.findings + more, key=Finding.sort_key)
        result.notes += notes
    if cluster.networks or cluster.oob:
        t5 = time.perf_counter()
        more, notes = check_networks(cluster, view, files, simulate=simulate, drain=drain)
        if cluster.oob:
            more += check_oob(cluster, files)
            notes.append(f"ran: NVUE-01, CONS-01 and OOB-01..04 on the {len(cluster.oob.switches)} OOB switches")
        result.findings = sorted(result.findings + more, key=Finding.sort_key)
        result.notes += notes
        result.timings["networks"] = time.perf_counter() - t5
    if cluster.kubernetes:
        more, notes = check_kubernetes(cluster, files, find_crds()[0])  # K8S-01..11
        result.findings = sorted(result.findings + more, key=Finding.sort_key)
        result.notes += notes
    return result


def _check(view: ParsedFabric, model: FabricModel, artifacts: list[Artifact], files: FileSet, fdir: Path | None,  # noqa: PLR0913
           findings: list[Finding], result: Result, t1: float, *, external: bool, simulate: bool,
           drain: list[str] | None, yang_models: Path | None) -> Result:
    t2 = time.perf_counter()
    findings += view.problems
    with gc_paused():  # the parsed fabric is large: no collection passes over it while the rules allocate
        checked = rules_and_simulation(view, simulate=simulate, drain=drain or [])  # side by side when large
    findings += checked.findings
    t3 = time.perf_counter()
    result.timings.update(parse=t2 - t1, rules=t3 - t2)
    if external:
        if fdir is None:
            need = sum(len(a.content) + 4096 for a in artifacts)  # a tmpfs file takes at least a page
            with tempfile.TemporaryDirectory(prefix="netauto-validate-", dir=memory_tmp(need)) as tmp:
                root = Path(tmp) / model.name
                ext, notes = run_external(root, files, yang_models=yang_models, prepare=DeviceWriter(artifacts, root))
        else:
            ext, notes = run_external(fdir, files, yang_models=yang_models)
        findings += ext
        result.notes += notes
        result.timings["external"] = time.perf_counter() - t3
    else:
        result.notes.append("skipped: real validators (--no-external)")
    if checked.sim is not None:  # the simulation's findings and notes come after the validators'
        findings += checked.sim.findings
        result.notes += checked.sim.notes
        result.sim = checked.sim
        result.timings["routesim"] = checked.sim_seconds
    result.findings = sorted(findings, key=Finding.sort_key)
    return result
