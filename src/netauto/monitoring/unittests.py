"""`promtool test rules` unit tests for every generated alert: one healthy test (every expected session
Established, every expected port up, the sample counters quiet) where no alert fires, and per alert a test that
breaks one design fact and expects exactly that alert, with the design's labels."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netauto.monitoring.facts import Fact, Facts
from netauto.monitoring.rules import INTENT_METRIC, NIC_COUNTERS, PORT_COUNTERS, Alert, Timing
from netauto.platforms import telemetry as t

STEP = "1m"
SAMPLES = "x10"  # 10 min of samples at STEP
EVAL = "7m"  # 5 m window + 5 m hold: pending from 1 m, firing from 6 m (every rule is evaluated each step)
SAMPLE = 8  # design facts of each kind the tests feed, beyond one of every shape (network, role, kind)


def _spread(found: list[Fact], per_kind: int) -> list[Fact]:
    """The first `per_kind` facts and the first of every shape (network, role, port kind, lossless), in order."""
    shapes: set[tuple[str, ...]] = set()
    keep = []
    for i, f in enumerate(found):
        m = f.label_map
        shape = (m.get("network", ""), m.get("role", ""), m.get("kind", ""), m.get("lossless", ""))
        if i < per_kind or shape not in shapes:
            keep.append(f)
        shapes.add(shape)
    return keep


def sample(facts: Facts, per_kind: int = SAMPLE) -> Facts:
    """The design facts the unit tests feed as input series: a spread of each kind plus the uplinks of the first
    leaf that has several (the uplink-imbalance test). The alerts' expressions are the same for every fact, so
    a sample proves them; feeding all of a 10k-GPU fabric's ~80,000 facts made promtool run for minutes."""
    leaf = facts.leaves_with_uplinks[0] if facts.leaves_with_uplinks else None
    ports = _spread(facts.ports, per_kind)
    ports += [p for p in facts.ports if leaf and p.label_map["device"] == leaf and p.label_map.get("uplink") == "true"
              and p not in ports]
    uplink = next((p for p in facts.ports if p.label_map.get("uplink") == "true"), None)
    if uplink is not None and uplink not in ports:
        ports.append(uplink)
    return Facts(sessions=_spread(facts.sessions, per_kind), ports=ports,
                 rail_nics=_spread(facts.rail_nics, per_kind), leaves_with_uplinks=[leaf] if leaf else [])


def q(value: str) -> str:
    """A PromQL / exposition-format label value: double-quoted, backslash, quote and newline escaped."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def series(name: str, **labels: str) -> str:
    return name + "{" + ",".join(f"{k}={q(v)}" for k, v in labels.items()) + "}"


def expand(template: str, labels: dict[str, str]) -> str:
    """The summary as Prometheus expands it for these labels ({{ $labels.x }} only)."""
    return re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels.get(m.group(1), ""), template)


@dataclass
class Case:
    name: str
    alert: str
    changes: dict[str, str | None] = field(default_factory=dict)  # series -> values (None: removed)
    fires: list[dict[str, str]] = field(default_factory=list)  # the alert's expected labels (without severity)
    interval: str = STEP
    eval_time: str = EVAL
    also: list[tuple[str, list[dict[str, str]]]] = field(default_factory=list)  # more alerts the same input fires


class Builder:
    def __init__(self, facts: Facts, alerts: list[Alert], tm: Timing, roce_priorities: list[int],
                 recorded: dict[str, str] | None = None) -> None:
        self.facts, self.tm = facts, tm
        self.recorded = recorded or {}  # recording rule name -> its expr (what an alert reads through it)
        self.alerts = {a.name: a for a in alerts}
        self.prio = roce_priorities[0] if roce_priorities else 3
        self.session = facts.sessions[0] if facts.sessions else None
        self.port = next((p for p in facts.ports if p.label_map.get("uplink") == "true"),
                         facts.ports[0] if facts.ports else None)
        self.nic = facts.rail_nics[0] if facts.rail_nics else None
        self.leaf = facts.leaves_with_uplinks[0] if facts.leaves_with_uplinks else None

    # ------------------------------------------------------------ inputs
    def healthy(self) -> dict[str, str]:
        # the intent of the sampled facts (in production: netauto-intent.rules.yml, every fact)
        s: dict[str, str] = {series(INTENT_METRIC[f.kind], **f.label_map): "1" + SAMPLES for f in self.facts.all()}
        for f in self.facts.sessions:
            m = f.label_map
            s[series(t.FRR_BGP_PEER_STATE, device=m["device"], peer=m["port"], afi="ipv4", safi="unicast",
                     vrf="default")] = "1" + SAMPLES
        for f in self.facts.ports:
            s[series(t.NODE_NETWORK_UP, device=f.label_map["device"], port=f.label_map["port"])] = "1" + SAMPLES
        for f in self.facts.ports:  # every expected port publishes the counters the alerts read (their guard)
            for name in PORT_COUNTERS:
                s[series(name, device=f.label_map["device"], port=f.label_map["port"])] = "0+0" + SAMPLES
        if self.port is not None:
            m = self.port.label_map
            # healthy is not silent: one bounce (2 carrier changes) and a trickle of rx_dropped (30 a minute: the
            # frames of protocols a Linux port does not handle) alert on no port
            s[series(t.NODE_CARRIER_CHANGES, device=m["device"], port=m["port"])] = "0 2+0x9"
            for name in t.NODE_DISCARDS:
                s[series(name, device=m["device"], port=m["port"])] = ("0+30" if name == t.NODE_DISCARDS[0] else "0+0") + SAMPLES
        for port in self._uplinks():
            s[series(t.NODE_TX_BYTES, device=self.leaf or "", port=port)] = "0+1000000000" + SAMPLES
        for nic in self.facts.rail_nics:  # every expected NIC publishes its counters, its textfile is fresh
            for counter in NIC_COUNTERS:
                s[self._rdma(counter, nic)] = "0+0" + SAMPLES
            s[self._mtime(nic)] = "0+60" + SAMPLES
        if self.nic is not None:
            for counter, step in (("np_ecn_marked_roce_packets", 100), ("np_cnp_sent", 50), ("rp_cnp_handled", 50)):
                s[self._rdma(counter)] = f"0+{step}{SAMPLES}"
            s[self._pause()] = "0+15" + SAMPLES
            for stat in (f"rx_prio{self.prio}_discards", t.PAUSE_STORM_STAT):
                s[self._pause(stat)] = "0+0" + SAMPLES
            s[self._pause("rx_discards_phy")] = "7+0" + SAMPLES
            s[self._verify("counters", f"{self.nic.label_map['peer_port']} tc{self.prio} lossless drops")] = "0" + SAMPLES
        s[series(t.VERIFY_LAST_RUN, job="netauto-verify")] = "600" + SAMPLES
        dev = (self.port.label_map["device"] if self.port else "none")
        s[series("up", job="netauto-node", device=dev, instance=f"{dev}:{t.NODE_EXPORTER_PORT}")] = "1" + SAMPLES
        return s

    def _uplinks(self) -> list[str]:
        return [f.label_map["port"] for f in self.facts.ports
                if f.label_map["device"] == self.leaf and f.label_map.get("uplink") == "true"]

    def _rdma(self, counter: str, nic: Fact | None = None) -> str:
        which = nic or self.nic
        m = which.label_map if which is not None else {}
        return series(t.RDMA_HW_COUNTER, device=m.get("device", ""), port=m.get("port", ""),
                      rdma_device=m.get("rdma_device", ""), ib_port="1", counter=counter)

    def _pause(self, stat: str = "") -> str:
        m = self.nic.label_map if self.nic else {}
        return series(t.ETHTOOL_STAT, device=m.get("device", ""), port=m.get("port", ""),
                      stat=stat or f"rx_prio{self.prio}_pause")

    @staticmethod
    def _mtime(nic: Fact) -> str:
        return series(t.NODE_TEXTFILE_MTIME, device=nic.label_map["device"], file=f"{t.TEXTFILE_DIR}/{t.ROCE_TEXTFILE}")

    def _verify(self, check: str, item: str) -> str:
        dev = self.nic.label_map["peer"] if self.nic else (self.port.label_map["device"] if self.port else "none")
        return series(t.VERIFY_FINDING, check=check, device=dev, item=item, port=item.split()[0], network="compute")

    # ------------------------------------------------------------ faults
    def cases(self) -> list[Case]:  # noqa: C901 - one fault per alert, listed together
        out: list[Case] = []
        if self.session is not None:
            m = self.session.label_map
            key = series(t.FRR_BGP_PEER_STATE, device=m["device"], peer=m["port"], afi="ipv4", safi="unicast", vrf="default")
            out.append(Case("session down", "NetautoBgpSessionDown", {key: "0" + SAMPLES}, [m]))
            out.append(Case("neighbour removed from FRR", "NetautoBgpSessionDown", {key: None}, [m]))
        if self.port is not None:
            m = self.port.label_map
            dp = {"device": m["device"], "port": m["port"]}
            # one faulty port: down, flapping and dropping (three alerts, one test: every test evaluates every rule)
            out.append(Case("port down, flapping, dropping", "NetautoPortDown", {
                series(t.NODE_NETWORK_UP, **dp): "0" + SAMPLES, series(t.NODE_CARRIER_CHANGES, **dp): "0+2" + SAMPLES,
                series(t.NODE_DISCARDS[0], **dp): "0+1000" + SAMPLES}, [m],
                also=[("NetautoLinkFlapping", [m]), ("NetautoPortDiscards", [m])]))
            gone_counter: dict[str, str | None] = {series(t.NODE_CARRIER_CHANGES, **dp): None}  # the port up, one counter of it gone
            out.append(Case("port counter gone", "NetautoPortCountersMissing", gone_counter,
                            [{**m, "missing": t.NODE_CARRIER_CHANGES}]))
        ups = self._uplinks()
        if self.leaf and len(ups) > 1:
            lm = next(f.label_map for f in self.facts.ports if f.label_map["device"] == self.leaf)
            labels: dict[str, str] = {k: lm[k] for k in ("device", "network", "rail", "su") if k in lm}
            out.append(Case("uplink imbalance", "NetautoUplinkImbalance",
                            {series(t.NODE_TX_BYTES, device=self.leaf, port=ups[0]): "0+9000000000" + SAMPLES}, [labels]))
        if self.nic is not None:
            m = self.nic.label_map
            rdma = {**m, "ib_port": "1", "counter": "np_ecn_marked_roce_packets"}
            out.append(Case("ECN marks, no CNP sent", "NetautoRoceEcnWithoutCnp",
                            {self._rdma("np_cnp_sent"): "0+0" + SAMPLES}, [rdma]))
            rail = {k: m[k] for k in ("network", "rail")}
            out.append(Case("CNPs sent, none handled on the rail", "NetautoRoceCnpNotHandled",
                            {self._rdma("rp_cnp_handled"): "0+0" + SAMPLES}, [rail]))
            out.append(Case("PFC pause storm", "NetautoHostPfcStorm",
                            {self._pause(): "0+150000" + SAMPLES}, [{**m, "stat": f"rx_prio{self.prio}_pause"}]))
            out += self._loss_and_silence_cases()
            verify = Case("verify findings failing", "", {})
            for alert, check, item in (
                ("NetautoLosslessDrops", "counters", f"{m['peer_port']} tc{self.prio} lossless drops"),
                ("NetautoPfcWatchdogStorm", "counters", f"{m['peer_port']} tc{self.prio} pfc-watchdog storms"),
                ("NetautoFecNotAsIntended", "fec", m["peer_port"]),
                ("NetautoQosNotAsIntended", "qos", f"{m['peer_port']} pfc"),
                ("NetautoAdaptiveRoutingNotAsIntended", "ar", "adaptive-routing"),
            ):
                key = self._verify(check, item)
                found: dict[str, str] = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', key))
                verify.changes[key] = "1" + SAMPLES
                verify.also.append((alert, [found]))
            verify.alert, verify.fires = verify.also.pop(0)
            out.append(verify)
        # no verify result at all: `absent()` fires after the stale time (a long test with no input at all)
        out.append(Case("verify metric absent", "NetautoVerifyAbsent", {series(t.VERIFY_LAST_RUN, job="netauto-verify"): None},
                        [{}], interval="10m", eval_time=f"{self.tm.verify_stale + 600}s"))
        # the last run 3 h before the test clock's zero (a 3 h test would evaluate every rule 720 times)
        out.append(Case("verify stale", "NetautoVerifyStale", {series(t.VERIFY_LAST_RUN, job="netauto-verify"): "-10800" + SAMPLES},
                        [{"job": "netauto-verify"}]))
        up_key = next(k for k in self.healthy() if k.startswith("up{"))
        out.append(Case("exporter down", "NetautoExporterDown", {up_key: "0" + SAMPLES},
                        [dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', up_key))]))
        return out

    def _loss_and_silence_cases(self) -> list[Case]:
        """RoCE loss on the first NIC; its counters removed, the second NIC's gone stale (a staleness marker),
        and the first NIC's textfile no longer rewritten."""
        assert self.nic is not None
        m = self.nic.label_map
        discard = f"rx_prio{self.prio}_discards"
        loss = Case("RoCE loss on a NIC", "NetautoRoceNicDiscards",
                    {self._pause(discard): "0+5" + SAMPLES, self._pause(t.PAUSE_STORM_STAT): "0+1" + SAMPLES,
                     self._rdma("packet_seq_err"): "0+3" + SAMPLES}, [{**m, "stat": discard}],
                    also=[("NetautoNicPauseStormPrevention", [{**m, "stat": t.PAUSE_STORM_STAT}]),
                          ("NetautoRoceSequenceErrors", [{**m, "ib_port": "1", "counter": "packet_seq_err"}])])
        gone: dict[str, str | None] = {k: None for k in self.healthy() if k.startswith(t.RDMA_HW_COUNTER + "{")
                                       and f'port={q(m["port"])}' in k and f'device={q(m["device"])}' in k}
        fires = [m]
        other = next((n for n in self.facts.rail_nics if n.label_map["device"] != m["device"]
                      or n.label_map["port"] != m["port"]), None)
        if other is not None:  # the exporter stopped publishing it: Prometheus marks the series stale
            gone.update({self._rdma(c, other): "0 0 stale" for c in NIC_COUNTERS})
            fires.append(other.label_map)
        missing = Case("NIC counters removed or stale", "NetautoRoceCountersMissing", gone, fires)
        # one counter of the first NIC gone, its others there
        incomplete = Case("one NIC counter gone", "NetautoNicCountersIncomplete", {self._rdma("out_of_sequence"): None},
                          [{**m, "missing": "out_of_sequence"}])
        frozen = Case("counters textfile not rewritten", "NetautoCountersTextfileStale",
                      {self._mtime(self.nic): "-600+0" + SAMPLES},
                      [{"device": m["device"], "file": f"{t.TEXTFILE_DIR}/{t.ROCE_TEXTFILE}"}])
        return [loss, missing, incomplete, frozen]

    def _relevant(self, inputs: dict[str, str], alert: str) -> dict[str, str]:
        """The healthy series an alert reads (directly or through a recording rule): a fault test carries only
        those, so the file stays small while every `unless` still sees every expected session and port."""
        expr = self.alerts[alert].expr
        expr += " ".join(e for name, e in self.recorded.items() if name in expr)
        metrics: dict[str, bool] = {}  # metric name -> read by the alert (one regex per name, not per series)
        for k in inputs:
            name = k.split("{")[0]
            if name not in metrics:
                metrics[name] = re.search(rf"\b{re.escape(name)}\b", expr) is not None
        return {k: v for k, v in inputs.items() if metrics[k.split("{")[0]]}

    # ------------------------------------------------------------ the file
    def _expect(self, alert: str, labels: list[dict[str, str]]) -> list[dict]:
        a = self.alerts[alert]
        return [{"exp_labels": {**lb, "severity": a.severity},
                 "exp_annotations": {"summary": expand(a.summary, lb)}} for lb in labels]

    def document(self, rule_file: str) -> dict:
        healthy = self.healthy()
        tests = [{"name": "healthy fabric: no alert", "interval": STEP,
                  "input_series": [{"series": k, "values": v} for k, v in healthy.items()],
                  "alert_rule_test": [{"eval_time": EVAL, "alertname": name, "exp_alerts": []} for name in self.alerts]}]
        for case in self.cases():
            inputs = {**self._relevant(healthy, case.alert), **case.changes}
            for alert, _ in case.also:
                inputs = {**self._relevant(healthy, alert), **inputs}
            if case.interval != STEP:  # a long test: only the series it is about
                inputs = dict(case.changes)
            tests.append({"name": f"{case.alert}: {case.name}", "interval": case.interval,
                          "input_series": [{"series": k, "values": v} for k, v in inputs.items() if v is not None],
                          "alert_rule_test": [{"eval_time": case.eval_time, "alertname": alert,
                                               "exp_alerts": self._expect(alert, fires)}
                                              for alert, fires in [(case.alert, case.fires), *case.also]]})
        return {"rule_files": [rule_file], "evaluation_interval": STEP, "tests": tests}
