"""`netauto lab up --monitoring`: the real monitoring stack inside a lab. Debian's prometheus-frr-exporter
(switches) and prometheus-node-exporter (every node) run in each node's namespaces on its lab management
address; a real Prometheus runs in the lab's management namespace, scrapes them every 2 s and evaluates the
rules netauto generates for the fabric (netauto.monitoring, lab timing: 30 s windows, no hold). Every process
lives in a lab namespace, so `netauto lab down` stops them with the rest."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from netauto.errors import NetautoError
from netauto.lab import netns, runtime
from netauto.lab.plan import MGMT_NS, ns_prefix
from netauto.model.cluster import ClusterModel
from netauto.monitoring import facts
from netauto.render.monitoring import RULE_FILES, intent_text, logic_texts
from netauto.monitoring.rules import LAB
from netauto.monitoring.scrape import prometheus_config
from netauto.netutil.ip import ip_of
from netauto.platforms import telemetry as t
from netauto.platforms.host import ROCE_COUNTERS

PROMETHEUS_PORT = 9090
SCRAPE = "2s"
TOOLS = ("prometheus", "prometheus-frr-exporter", "prometheus-node-exporter")


def preflight() -> list[str]:
    return [f"{tool} not installed (apt-get install {tool})" for tool in TOOLS if shutil.which(tool) is None]


def _spawn(argv: list[str], log: Path) -> int:
    """Start a daemon detached (its own session), output to `log`; it stays in the namespaces of `argv` (nsenter
    execs it: the pid returned is the daemon's)."""
    with log.open("ab") as fh:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=fh, stderr=fh, start_new_session=True).pid


def _in_lab(found: facts.Facts, absent: set[str]) -> facts.Facts:
    """The design facts without the devices the lab does not run (`--servers N` boots a subset): no fault."""
    def keep(fs: list[facts.Fact]) -> list[facts.Fact]:
        return [f for f in fs if not {f.label_map["device"], f.label_map.get("peer", "")} & absent]
    return facts.Facts(keep(found.sessions), keep(found.ports), keep(found.rail_nics),
                       [d for d in found.leaves_with_uplinks if d not in absent])


def _rdma_devices(cluster: ClusterModel) -> dict[str, list[str]]:
    """Server -> the RDMA devices of its lossless networks' NICs (those the rules expect counters of)."""
    out: dict[str, list[str]] = {}
    lossless = {"compute"} | {p.name for p in cluster.networks if p.qos == "lossless"}
    for network, fabric in cluster.fabrics():
        if network in lossless:
            for srv in fabric.servers:
                out.setdefault(srv.name, []).extend(r.rdma_device for r in srv.rails)
    return out


def _counters(st: dict[str, Any], dev: str, d: Path, rdma: list[str]) -> int | None:
    """The server's rendered netauto-roce-counters.sh, every 2 s (its timer's job), over a sysfs tree of zero
    hw_counters (veths have no RDMA device): the textfile the rules read is really written, refreshed and can be
    stopped, aged or removed (tests/test_monitoring_lab.py)."""
    script = d / ROCE_COUNTERS
    if not script.is_file() or not rdma:
        return None
    for name in rdma:
        hw = d / "lab-sys/class/infiniband" / name / "ports/1/hw_counters"
        hw.mkdir(parents=True, exist_ok=True)
        for c in t.HW_COUNTERS:
            (hw / c).write_text("0\n")
    loop = 'while :; do sh "$0"; sleep 2; done'
    return _spawn(runtime.exec_argv(st, dev, ["env", f"NETAUTO_SYSFS={d / 'lab-sys'}",
                                              f"NETAUTO_TEXTFILE_DIR={d / 'textfile'}", "sh", "-c", loop, str(script)]),
                  d / "roce-counters.log")


def start(st: dict[str, Any], cluster: ClusterModel, log: Any = lambda s: None) -> dict[str, Any]:
    """Exporters in every node with a management address, then Prometheus; returns the state's `monitoring`."""
    missing = preflight()
    if missing:
        raise NetautoError("lab --monitoring: " + "; ".join(missing))
    lab = Path(st["dir"])
    mon = lab / "monitoring"
    (mon / "data").mkdir(parents=True, exist_ok=True)
    switches, servers = [], []
    pids: dict[str, dict[str, int]] = {}
    rdma = _rdma_devices(cluster)
    for dev, node in st["nodes"].items():
        if not node.get("mgmt_address"):
            continue
        ip = ip_of(node["mgmt_address"])
        d = Path(node["dir"])
        (d / "textfile").mkdir(exist_ok=True)
        pids[dev] = {"node-exporter": _spawn(runtime.exec_argv(st, dev, [
            "prometheus-node-exporter", f"--web.listen-address={ip}:{t.NODE_EXPORTER_PORT}",
            f"--collector.textfile.directory={d / 'textfile'}"]), d / "node-exporter.log")}
        if node["kind"] == "switch":
            _spawn(runtime.exec_argv(st, dev, ["prometheus-frr-exporter", f"--web.listen-address={ip}:{t.FRR_EXPORTER_PORT}",
                                               "--frr.socket.dir-path=/run/frr"]), d / "frr-exporter.log")
            switches.append((dev, ip))
        else:
            servers.append((dev, ip))
            loop = _counters(st, dev, d, rdma.get(dev, []))
            if loop is not None:
                pids[dev]["counters"] = loop
    everything = {sw.name for sw in cluster.all_switches()} | {s.name for _, f in cluster.fabrics() for s in f.servers}
    found = _in_lab(facts.collect(cluster), everything - set(st["nodes"]))
    intent = intent_text(cluster, SCRAPE, found)
    rules, _ = logic_texts(cluster, LAB, SCRAPE, found=found)
    (mon / RULE_FILES[0]).write_text(intent)
    (mon / RULE_FILES[1]).write_text(rules)
    config = prometheus_config(cluster, RULE_FILES, scrape_interval=SCRAPE, evaluation_interval=SCRAPE,
                               switches=switches, servers=servers)
    (mon / "prometheus.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    listen = f"{ip_of(st['mgmt_bridge'][0])}:{PROMETHEUS_PORT}"
    _spawn(["ip", "netns", "exec", ns_prefix(st["name"]) + MGMT_NS, "prometheus", f"--config.file={mon / 'prometheus.yml'}",
            f"--storage.tsdb.path={mon / 'data'}", f"--web.listen-address={listen}", "--storage.tsdb.retention.time=2h"],
           mon / "prometheus.log")
    log(f"monitoring: {len(switches)} frr-exporters, {len(switches) + len(servers)} node-exporters, "
        f"Prometheus on {listen} (in {ns_prefix(st['name']) + MGMT_NS}) with {rules.count('- alert:')} generated alerts")
    return {"prometheus": listen, "rules": str(mon / RULE_FILES[1]), "intent": str(mon / RULE_FILES[0]), "pids": pids}


def api(st: dict[str, Any], path: str, timeout: float = 5.0) -> Any:
    """GET Prometheus's HTTP API from inside the lab's management namespace."""
    mon = st.get("monitoring")
    if not mon:
        raise NetautoError(f"lab {st['name']} runs no monitoring (fix: netauto lab down, then lab up --monitoring)")
    url = f"http://{mon['prometheus']}{path}"

    def get(_: str) -> Any:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 - a lab address we started
            return json.loads(resp.read())

    ns = ns_prefix(st["name"]) + MGMT_NS
    try:
        got = netns.in_netns([ns], get)[ns]
    except OSError as exc:
        raise NetautoError(f"lab {st['name']}: Prometheus at {url} not reachable ({exc})") from None
    if got is None:
        raise NetautoError(f"lab {st['name']}: Prometheus at {url} not reachable (starting? see its log in "
                           f"{st['dir']}/monitoring/prometheus.log)")
    return got


def firing(st: dict[str, Any]) -> list[dict[str, Any]]:
    """The firing alerts: labels and summary, sorted by name and device."""
    data = api(st, "/api/v1/alerts").get("data", {}).get("alerts", [])
    out = [{"alert": a["labels"].get("alertname", ""), "labels": a["labels"],
            "summary": a.get("annotations", {}).get("summary", ""), "since": a.get("activeAt", "")}
           for a in data if a.get("state") == "firing"]
    return sorted(out, key=lambda a: (a["alert"], a["labels"].get("device", ""), a["labels"].get("port", "")))


def wait_ready(st: dict[str, Any], timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if api(st, "/api/v1/query?query=up").get("status") == "success":
                return True
        except (NetautoError, OSError, ValueError):
            pass
        time.sleep(1)
    return False
