"""The programmatic gate other commands use before they change anything (e.g. `netauto deploy`).

A thin wrapper over `netauto.validate.runner.validate_cluster`: the same rules, real validators and route
simulation as `netauto validate`, reduced to the error-severity findings as one line each. It takes the model
and the files the caller is about to push, so what is checked is what is deployed (no second render).
"""

from __future__ import annotations

from netauto.model.cluster import ClusterModel
from netauto.render.engine import Artifact
from netauto.validate.findings import Finding


def _line(f: Finding) -> str:
    where = f.device or "fabric"
    if f.file:
        where += f":{f.file}" + (f":{f.line}" if f.line else "")
    return f"{f.rule} {where}: {f.message}"


def errors_for(cluster: ClusterModel, artifacts: list[Artifact], *, external: bool = True) -> list[str]:
    """Error findings of a full validation of `cluster` and its rendered `artifacts` (empty: safe to deploy).

    External validators (vtysh, ifup, netplan) run when installed; the runner skips a missing one with a
    note, it never turns a missing tool into an error, so this gate costs nothing extra on a bare host.
    """
    from netauto.validate.runner import validate_cluster  # lazy: +66 modules (netauto.validate, netauto.render) at import otherwise; only this function needs them

    result = validate_cluster(cluster, artifacts, external=external, simulate=True)
    return [_line(f) for f in result.findings if f.severity == "error"]
