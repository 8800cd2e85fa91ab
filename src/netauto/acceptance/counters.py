"""`report --counters`: verify's counter reading (PFC pause, ECN marks, CNPs, RoCE-class and drop counters)
twice, `window` seconds apart, on the devices of the suspect parts; the increases of the suspect ports only."""

from __future__ import annotations

import time
from pathlib import Path

from netauto.acceptance.report import AcceptanceReport
from netauto.verify import counter_checks


def suspect_ports(rep: AcceptanceReport) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for s in rep.where.suspects:
        for part in s.parts:
            for dev, port in part.ports:
                out.setdefault(dev, set()).add(port)
    return out


def suspect_counters(rep: AcceptanceReport, inventory: Path, templates: Path | None, lab: str | None,
                     no_host_key_check: bool, window: float) -> dict[str, dict[str, dict[str, int]]]:
    # lazy: Nornir and the NAPALM drivers (verify.run, deploy.run_targets) load only when `report --counters` runs
    from netauto.deploy.run_targets import built_targets  # lazy: +33 modules (netauto.pipeline, the resolver, the lab plan) at import otherwise; only this function needs them
    from netauto.verify.run import collect, networks_of  # lazy: +168 modules (pydantic, nornir, netauto.pipeline) at import otherwise; only this function needs them

    ports = suspect_ports(rep)
    run = built_targets(inventory, templates, lab, "off" if no_host_key_check else "strict")
    model, targets, creds = run.build.cluster, run.targets, run.creds
    names = sorted(d for d in ports if d in targets)
    before, _ = collect(model, targets, names, creds, workers=16, qos_counters=True)
    time.sleep(window)
    after, _ = collect(model, targets, [n for n in names if n in before], creds, workers=16, qos_counters=True)
    deltas = counter_checks.counter_deltas(before, after, counter_checks.roce_classes(networks_of(model)))
    return {dev: {p: c for p, c in deltas.get(dev, {}).items() if p in ports[dev]} for dev in names
            if any(p in ports[dev] for p in deltas.get(dev, {}))}
