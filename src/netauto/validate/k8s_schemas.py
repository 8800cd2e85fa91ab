"""K8S-01, read back from the rendered manifests: every manifest passes its CRD's OpenAPI schema
(netauto.validate.k8s_crds) or, a built-in kind, Kubernetes' own schema (kubernetes-validate, extra [kubernetes]),
and the kustomization lists exactly the manifests. The rules that hold the manifests against the model (K8S-02..11)
are netauto.validate.kubernetes's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from netauto.render import kubernetes as names
from netauto.validate.k8s_crds import check_document, load_crds
from netauto.validate.k8s_tenants import Err, label

KIND = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62}")


def check_schemas(by_file: dict[str, list[dict[str, Any]]], crd_dir: Path | None, err: Err) -> list[str]:
    """K8S-01 on the manifests of `by_file` (path -> documents), against the CRDs in `crd_dir` (None: built-in kinds
    and the kustomization only); the notes say what ran."""
    notes = []
    crds = None
    count = sum(map(len, by_file.values()))
    if crd_dir is not None:
        crds = load_crds(str(crd_dir))
        notes.append(f"ran: K8S-01..11 on {count} Kubernetes manifests (their CRDs' "
                     "OpenAPI schemas; no API server: CEL rules and webhooks not checked)")
    else:
        notes.append(f"ran: K8S-02..11 on {count} Kubernetes manifests")
        notes.append("skipped: K8S-01 CRD schemas (no CRDs: set NETAUTO_K8S_CRD_DIR or run scripts/get-k8s-crds)")
    for path, docs in by_file.items():
        for doc in docs:
            if doc.get("kind") == "Kustomization":
                want = sorted(p for p in by_file if p != names.KUSTOMIZATION and p not in names.PATCHES)
                have = doc.get("resources") or []
                if not isinstance(have, list) or sorted(map(str, have)) != want:
                    err("K8S-01", path, f"Kustomization resources {doc.get('resources')} are not the manifests {want}")
                continue
            problems = _builtin(doc) if "/" not in str(doc.get("apiVersion")) else (
                None if crds is None else _crd(doc, crds))
            for p in problems or []:
                err("K8S-01", path, f"{label(doc)}: {p}")
    return notes


def _crd(doc: dict[str, Any], crds: Any) -> list[str]:
    problems = check_document(doc, crds)
    return [f"no CRD for {doc.get('apiVersion')} {doc.get('kind')}"] if problems is None else problems


def _builtin(doc: dict[str, Any]) -> list[str]:
    try:
        import kubernetes_validate  # lazy: optional dependency (extra [kubernetes])
    except ImportError:
        return []
    kind, api = doc.get("kind"), doc.get("apiVersion")
    if not isinstance(kind, str) or not KIND.fullmatch(kind):  # kubernetes_validate makes a file name of it
        return [f"kind {str(kind)[:60]!r} is not a Kubernetes kind"]
    if not isinstance(api, str):
        return ["apiVersion is missing"]
    try:
        kubernetes_validate.validate(doc, kubernetes_validate.utils.latest_version(), strict=True)
    except kubernetes_validate.ValidationError as exc:
        return [f"{'.'.join(map(str, exc.path)) or '.'}: {exc.message}"]
    except kubernetes_validate.SchemaNotFoundError:
        return [f"no Kubernetes schema for apiVersion {api[:60]} kind {kind}"]
    return []
