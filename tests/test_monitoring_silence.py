"""No alert goes quiet when its data does: for every alert rule netauto renders for the shipped inventories, every
input series it reads (parsed from the rendered expressions, through the recording rules) is removed for the
devices and ports the intent says exist (never there, or gone stale), and a real `promtool test rules` run must
show SOME alert firing that names the device (and port). The tests are generated here from the rules and the
intent, not written per alert: a new alert over a new series is checked without a new test. The one known
gap is listed (UNGUARDED) and asserted still read, not skipped silently."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from netauto.monitoring import facts as facts_mod
from netauto.monitoring.facts import Fact
from netauto.monitoring.rules import INTENT_METRIC
from netauto.monitoring.unittests import series
from netauto.platforms import telemetry as t
from netauto.render.monitoring import logic_texts
from netauto.pipeline import build_cluster

ROOT = Path(__file__).resolve().parents[1]
INVENTORIES = [ROOT / "inventory"] + sorted(p for p in (ROOT / "examples").glob("*/inventory")
                                            if not p.parent.name.startswith(("10k", "100k")))
SERIES_OF_JOB = {  # what each scrape job publishes about its target (prometheus.yml: monitoring.scrape)
    "netauto-frr": {t.FRR_BGP_PEER_STATE},
    "netauto-node": {t.NODE_NETWORK_UP, t.NODE_CARRIER_CHANGES, t.NODE_TX_BYTES, *t.NODE_DISCARDS,
                     t.RDMA_HW_COUNTER, t.ETHTOOL_STAT, t.NODE_TEXTFILE_MTIME},
}
# metric -> (fact kind it is published for, per port or per device, healthy values, stale values)
SHAPE = {t.FRR_BGP_PEER_STATE: ("bgp_session", True, "1x6", "1 1 stale"),
         t.NODE_NETWORK_UP: ("port", True, "1x6", "1 1 stale"),
         **{m: ("port", True, "0+0x6", "0 0 stale") for m in (t.NODE_CARRIER_CHANGES, t.NODE_TX_BYTES, *t.NODE_DISCARDS)},
         t.RDMA_HW_COUNTER: ("rail_nic", True, "0+0x6", "0 0 stale"),
         t.ETHTOOL_STAT: ("rail_nic", True, "0+0x6", "0 0 stale"),
         t.NODE_TEXTFILE_MTIME: ("rail_nic", False, "0+60x6", "0 60 stale")}
# read by alerts but not per device: netauto verify's one textfile per run (its absence: NetautoVerifyAbsent and
# NetautoVerifyStale, tests/test_monitoring.py; a finding names the device verify checked, no intent series does)
NOT_PER_DEVICE = {t.VERIFY_FINDING, t.VERIFY_LAST_RUN}
# known gaps, not passes: (metric, fixed labels) whose removal fires nothing, () = all its series of a device/port
# at once. Every single `ethtool -S` statistic of a NIC gone is guarded (NetautoNicCountersIncomplete); all of
# them gone while its hw_counters remain is not: a lab veth publishes none of them, so that guard would fire on
# every healthy lab server (docs/monitoring.md, "Silence")
UNGUARDED: set[tuple[str, tuple[tuple[str, str], ...]]] = {(t.ETHTOOL_STAT, ())}
TELEMETRY = {x for k, v in vars(t).items() if k.isupper() for x in ([v] if isinstance(v, str) else v if isinstance(v, tuple) else [])
             if isinstance(x, str)} | {"up"}
WORDS = {"by", "on", "unless", "and", "or", "group_left", "group_right", "without", "ignoring", "bool", "offset"}
SELECTOR = re.compile(r'([A-Za-z_:][\w:]*)\s*(\{[^}]*\})?')
MATCHER = re.compile(r'(\w+)\s*(=~|!=|!~|=)\s*"((?:[^"\\]|\\.)*)"')
EVAL = "5m"  # stale from 2m, a guard held 2m fires from 4m


def _inputs(rules: dict) -> dict[str, set[tuple[str, ...]]]:
    """alert -> its input selectors (metric, label, op, value...), read through the recording rules."""
    recorded = {r["record"]: r["expr"] for g in rules["groups"] for r in g["rules"] if "record" in r}
    out: dict[str, set[tuple[str, ...]]] = {}
    for g in rules["groups"]:
        for r in g["rules"]:
            if "alert" in r:
                out[r["alert"]] = _selectors(r["expr"], recorded)
    return out


def _selectors(expr: str, recorded: dict[str, str]) -> set[tuple[str, ...]]:
    expr = re.sub(r"\b(by|on|without|ignoring|group_left|group_right)\s*\([^)]*\)", r"\1", re.sub(r"\[\w+\]", "", expr))
    found: set[tuple[str, ...]] = set()
    braces_of: list[str] = []  # a selector's matchers, set aside while the strings outside them are blanked

    def keep(m: re.Match[str]) -> str:
        braces_of.append(m.group(0))
        return "{%d}" % (len(braces_of) - 1)

    clean = re.sub(r'"(?:[^"\\]|\\.)*"', '""', re.sub(r"\{[^}]*\}", keep, expr))
    for m in SELECTOR.finditer(clean):
        name, braces = m.group(1), braces_of[int(m.group(2)[1:-1])] if m.group(2) else ""
        rest = clean[m.end():].lstrip()
        if name in WORDS or rest.startswith(("(", "by", "without")) or re.fullmatch(r"\d+[smhd]?", name) \
                or clean[m.start() - 1:m.start()] in "[$.":
            continue
        if name in recorded:
            found |= _selectors(recorded[name], recorded)
        elif not (name.startswith("netauto:") and name.endswith("_expected")):
            assert name in TELEMETRY, f"{name}: an input metric not named in netauto.platforms.telemetry"
            found.add((name, *(x for mt in MATCHER.findall(braces) for x in mt)))
    return found


def _values(label: str, op: str, value: str) -> list[str]:
    """The label values a selector's matcher selects (its alternatives), as the exporter writes them."""
    if op == "=":
        return [value]
    regex = value.replace("\\\\", "\\")
    if re.fullmatch(r"[\w-]+(\|[\w-]+)*", regex):
        return regex.split("|")
    known = {"file": [f"{t.TEXTFILE_DIR}/{t.ROCE_TEXTFILE}"], "job": list(SERIES_OF_JOB)}[label]
    got = [v for v in known if re.fullmatch(regex, v)]
    assert got, (label, regex)
    return got


def _atoms(selectors: set[tuple[str, ...]]) -> set[tuple[str, tuple[tuple[str, str], ...]]]:
    """One (metric, fixed labels) per distinct series a selector reads for one device/port."""
    out = set()
    for name, *flat in selectors:
        matchers = [(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)]
        combos: list[tuple[tuple[str, str], ...]] = [()]
        for label, op, value in matchers:
            combos = [c + ((label, v),) for c in combos for v in _values(label, op, value)]
        out |= {(name, c) for c in combos}
    return out


def _sample(found: facts_mod.Facts) -> list[Fact]:
    """The first fact of every shape (kind, network, plane, tenant, role, port kind, lossless)."""
    seen, keep = set(), []
    for f in found.all():
        m = f.label_map
        shape = (f.kind, *(m.get(k, "") for k in ("network", "plane", "tenant", "role", "kind", "lossless")))
        if shape not in seen:
            seen.add(shape)
            keep.append(f)
    return keep


def _series(name: str, fixed: tuple[tuple[str, str], ...], f: Fact) -> str:
    m = f.label_map
    labels = {"device": m["device"], **({"peer": m["port"]} if name == t.FRR_BGP_PEER_STATE else {})}
    if SHAPE[name][1] and name != t.FRR_BGP_PEER_STATE:
        labels["port"] = m["port"]
    if name == t.RDMA_HW_COUNTER:
        labels |= {"rdma_device": m.get("rdma_device", ""), "ib_port": "1"}
    labels |= dict(fixed)
    return series(name, **labels)


def _up(job: str, device: str) -> str:
    return series("up", job=job, device=device, instance=f"{device}:1")


def _healthy(atoms: set, sample: list[Fact]) -> dict[str, str]:
    s = {series(INTENT_METRIC[f.kind], **f.label_map): "1x6" for f in sample}
    for name, fixed in atoms:
        if name in SHAPE and not _any(name, fixed, atoms):
            s |= {_series(name, fixed, f): SHAPE[name][2] for f in sample if f.kind == SHAPE[name][0]}
    switches = {f.label_map["device"] for f in sample if f.kind != "rail_nic"}
    s |= {_up(job, d): "1x6" for d in {f.label_map["device"] for f in sample} for job in SERIES_OF_JOB
          if job == "netauto-node" or d in switches}
    s[series(t.VERIFY_LAST_RUN, job="netauto-verify")] = "600x6"
    return s


def _any(name: str, fixed: tuple, atoms: set) -> bool:
    """A selector without label matchers where others name the metric's labels: it reads every series of it."""
    return not fixed and any(n == name and f for n, f in atoms)


def _names(f: Fact, per_port: bool) -> str:
    m = f.label_map
    return f'device="{m["device"]}"' + (f',port="{m["port"]}"' if per_port else "")


def _scenario(name: str, healthy: dict[str, str], changes: dict[str, str | None], named: list[str]) -> dict:
    inputs = {**healthy, **changes}
    return {"name": name, "interval": "1m",
            "input_series": [{"series": k, "values": v} for k, v in inputs.items() if v is not None],
            "promql_expr_test": [
                {"expr": f'max by (device) (ALERTS{{alertstate="firing",{sel}}}) # {name}', "eval_time": EVAL,
                 "exp_samples": [{"labels": "{" + sel.split(",")[0] + "}", "value": 1}]} for sel in dict.fromkeys(named)]}


def _document(inputs: dict[str, set], sample: list[Fact]) -> dict:
    atoms = _atoms(set().union(*inputs.values()))
    healthy = _healthy(atoms, sample)
    tests = [{"name": "healthy: no alert", "interval": "1m",
              "input_series": [{"series": k, "values": v} for k, v in healthy.items()],
              "promql_expr_test": [{"expr": 'ALERTS{alertstate="firing"}', "eval_time": EVAL, "exp_samples": []}]}]
    for name, fixed in sorted(atoms):
        if name not in SHAPE or (name, fixed) in UNGUARDED:
            continue
        kind, per_port, _, stale = SHAPE[name]
        facts = [f for f in sample if f.kind == kind]
        for variant, value in (("never there", None), ("gone stale", stale)):
            gone = {_series(name, fixed, f): value for f in facts}
            if _any(name, fixed, atoms):  # all the fact's series of the metric
                gone = {k: value for f in facts for k in healthy if k.startswith(_series(name, fixed, f)[:-1] + ",")}
            tests.append(_scenario(f"{name}{dict(fixed)} {variant}", healthy, gone, [_names(f, per_port) for f in facts]))
    for job, published in SERIES_OF_JOB.items():  # a target no longer scraped: its `up` and all it published
        for d in dict.fromkeys(f.label_map["device"] for f in sample):
            gone = {k: None for k in healthy if k.split("{")[0] in published | {"up"} and f'device="{d}"' in k
                    and (not k.startswith("up{") or f'job="{job}"' in k)}
            if any(k.startswith("up{") for k in gone):
                tests.append(_scenario(f"{job} target {d} gone", healthy, gone, [f'device="{d}"']))
    return {"rule_files": ["netauto.rules.yml"], "evaluation_interval": "1m", "tests": tests}


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed (apt-get install prometheus)")
@pytest.mark.parametrize("inventory", INVENTORIES, ids=lambda p: p.parent.name if p.parent != ROOT else "inventory")
def test_every_alert_input_gone_fires_an_alert_naming_the_device(inventory, tmp_path):
    cluster = build_cluster(inventory)
    rules_text, _ = logic_texts(cluster)
    inputs = _inputs(yaml.safe_load(rules_text))
    read = {s[0] for sel in inputs.values() for s in sel}
    assert read - NOT_PER_DEVICE <= set(SHAPE) | {"up"}, read  # every input metric has a silence scenario
    assert UNGUARDED <= _atoms(set().union(*inputs.values()))  # a listed gap is still read (else drop it)
    sample = _sample(facts_mod.collect(cluster))
    assert sample
    (tmp_path / "netauto.rules.yml").write_text(rules_text)
    (tmp_path / "silence.test.yml").write_text(yaml.safe_dump(_document(inputs, sample), sort_keys=False, width=10_000))
    p = subprocess.run(["promtool", "test", "rules", "silence.test.yml"], cwd=tmp_path, capture_output=True, text=True)
    failed = sorted(set(re.findall(r'ALERTS\{alertstate=\\"firing\\",(.*)\}\) # (.*)", time', p.stdout + p.stderr)))  # (which device, which input gone)
    assert p.returncode == 0, "\n".join(f"{why}: no alert {who}" for who, why in failed) or p.stdout + p.stderr
