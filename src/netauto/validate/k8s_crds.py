"""The CRDs the Kubernetes manifests are checked against: pinned upstream files, fetched into a cache, never shipped.

Each CRD is an `apiextensions.k8s.io/v1` file of its operator's repository at a pinned commit, verified by its git
blob id after download (the same files as ../shared/k8s-crds/README.md lists). Lookup order (`find_crds`), the first
folder holding every pinned file name wins:
  1. $NETAUTO_K8S_CRD_DIR (the user's own copy)
  2. the cache: $XDG_CACHE_HOME/netauto/k8s-crds/<pin> (default ~/.cache/...), written by `scripts/get-k8s-crds`
     (= `python -m netauto.validate.k8s_crds fetch`)
  3. development checkouts only (`dev=True`, the tests): ../shared/k8s-crds beside the repository

`check_document` validates one manifest against its CRD's `openAPIV3Schema` with jsonschema (Draft 7), treating the
schema as the API server and `kubectl --validate=strict` do: fields the schema does not declare are errors (unless
x-kubernetes-preserve-unknown-fields), x-kubernetes-int-or-string takes both, `nullable` allows null, and a required
field with a default is not missing. CEL rules (x-kubernetes-validations) and admission webhooks are not evaluated.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import urllib.request
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from netauto.cache import cache_dir, data_dirs, dev_data_dir
from netauto.private_files import private_dir
from netauto.inventory.names import dns_label_ok
from netauto.validate.kit_command import dev_copy_note

DIR_ENV = "NETAUTO_K8S_CRD_DIR"
DEV_ENV = "NETAUTO_K8S_CRD_DEV_DIR"
RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"


@dataclass(frozen=True)
class Pin:
    repo: str
    commit: str
    path: str
    blob: str  # git blob id of the file (sha1 of "blob <size>\0" + content)

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


_SRIOV = ("k8snetworkplumbingwg/sriov-network-operator", "249e20012faf17b4f38057f29608bde2b21c5c9a")
_NICCFG = ("Mellanox/nic-configuration-operator", "8bfbeb34ba25215dd06402cd01bae0108341a8d4")
_NETOP = ("Mellanox/network-operator", "b06827e085c59726b699faffcc526342d4d8e395")
_SPIDER = ("spidernet-io/spiderpool", "a7fbd3b2968d13952572ab95092b2caf7aa08ea9")
_NAD = ("k8snetworkplumbingwg/network-attachment-definition-client", "46fcc4112dcb9af0b277dc85fec8178acbddd5ab")
PINS: tuple[Pin, ...] = (
    Pin(*_SRIOV, "config/crd/bases/sriovnetwork.openshift.io_sriovnetworknodepolicies.yaml",
        "6e63ae6f413598c36297851232d715bd4b42d09c"),
    Pin(*_SRIOV, "config/crd/bases/sriovnetwork.openshift.io_sriovnetworks.yaml",
        "c38c52aba109bd077d3d85742333deabb6138f40"),
    Pin(*_NICCFG, "config/crd/bases/configuration.net.nvidia.com_nicconfigurationtemplates.yaml",
        "25934cd5a946111c128d6904ed60571282c1e661"),
    Pin(*_NETOP, "config/crd/bases/mellanox.com_nicclusterpolicies.yaml", "079eefe0ade2fac01cd6843927e26807c8a2bacd"),
    Pin(*_NETOP, "config/crd/bases/mellanox.com_hostdevicenetworks.yaml", "89e177ff9ace8d15dc94b76bafbf2af6b3f92e12"),
    Pin(*_NAD, "artifacts/networks-crd.yaml", "9aac45205f8ba074d32ae863054a535108991d8f"),
    Pin(*_SPIDER, "charts/spiderpool/crds/spiderpool.spidernet.io_spiderippools.yaml",
        "cd0f40aeb5e3f4b76108afe34db79e290b32d297"),
    Pin(*_SPIDER, "charts/spiderpool/crds/spiderpool.spidernet.io_spidermultusconfigs.yaml",
        "bab2007960a940b86ba669791394a8518088f0ac"),
)
PIN_ID = hashlib.sha1("".join(p.blob for p in PINS).encode()).hexdigest()[:12]


class CrdError(Exception):
    pass


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def cache_path() -> Path:
    return cache_dir("k8s-crds") / PIN_ID


def dev_dir() -> Path:
    return dev_data_dir("k8s-crds", DEV_ENV)


def find_crds(dev: bool = False) -> tuple[Path | None, list[Path]]:
    """The first folder holding every pinned CRD, and every folder looked at (for the 'skipped' note)."""
    candidates = [where for _, where in data_dirs("k8s-crds", dir_env=DIR_ENV, cache=cache_path(), dev_env=DEV_ENV,
                                                  dev=dev)]
    for where in candidates:
        if all((where / p.name).is_file() for p in PINS):
            return where, candidates
    return None, candidates


def fetch(dest: Path | None = None) -> Path:
    """Download the pinned CRDs into `dest` (default: the cache), each checked against its git blob id."""
    dest = dest or cache_path()
    private_dir(dest)  # 0700: a cache folder is read only when this user's own (netauto.cache.trusted)
    for pin in PINS:
        url = RAW.format(repo=pin.repo, commit=pin.commit, path=pin.path)
        with urllib.request.urlopen(url, timeout=60) as resp:  # noqa: S310 - a fixed https URL
            data = resp.read()
        if git_blob_id(data) != pin.blob:
            raise CrdError(f"{url}: content does not match the pinned blob {pin.blob}")
        (dest / pin.name).write_bytes(data)
    return dest


# ---------------------------------------------------------------- schema checking
def _convert(node: Any, root: bool = False) -> Any:
    """A Kubernetes structural schema node as a Draft 7 schema (strict about undeclared fields)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key.startswith("x-kubernetes-") or key in ("description", "default", "example", "nullable", "format"):
            continue
        if key == "properties":
            out[key] = {k: ({"type": "object"} if root and k == "metadata" else _convert(v)) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = _convert(value) if isinstance(value, dict) else value
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [_convert(v) for v in value]
        else:
            out[key] = value
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["type"] = ["integer", "string"]
    if node.get("nullable") and "type" in out:
        out["type"] = [*([out["type"]] if isinstance(out["type"], str) else out["type"]), "null"]
    if "required" in out and "properties" in node:  # the API server fills defaults in before it validates
        out["required"] = [r for r in out["required"] if "default" not in node["properties"].get(r, {})]
    if (node.get("type") == "object" and "properties" in node and "additionalProperties" not in node
            and not node.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    if root:  # every object has them, declared or not (the API server; e.g. the reference NAD CRD declares only spec)
        props = out.setdefault("properties", {})
        for key in ("apiVersion", "kind"):
            props.setdefault(key, {"type": "string"})
        props.setdefault("metadata", {"type": "object"})
    return out


@dataclass(frozen=True)
class Crd:
    group: str
    version: str
    kind: str
    namespaced: bool
    schema: dict[str, Any]


@cache
def load_crds(folder: str) -> dict[tuple[str, str], Crd]:
    """(apiVersion, kind) -> its CRD, from every *.yaml in `folder`."""
    out: dict[tuple[str, str], Crd] = {}
    for path in sorted(Path(folder).glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
                continue
            spec = doc["spec"]
            for v in spec.get("versions", []):
                schema = _convert(v["schema"]["openAPIV3Schema"], root=True)
                crd = Crd(spec["group"], v["name"], spec["names"]["kind"], spec.get("scope") == "Namespaced", schema)
                out[(f"{crd.group}/{crd.version}", crd.kind)] = crd
    return out


_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _path(parts: Any) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".") or "."


def check_document(doc: dict[str, Any], crds: dict[tuple[str, str], Crd]) -> list[str] | None:
    """Problems of one manifest against its CRD ("spec.numVfs: ..."); None when no CRD defines its kind."""
    import jsonschema  # lazy: optional dependency (extra [kubernetes])

    crd = crds.get((str(doc.get("apiVersion")), str(doc.get("kind"))))
    if crd is None:
        return None
    problems = []
    meta = doc.get("metadata") or {}
    name = meta.get("name")
    if not isinstance(name, str) or len(name) > 253 or not _DNS_SUBDOMAIN.fullmatch(name):
        problems.append(f"metadata.name: {name!r} is not an RFC 1123 subdomain")
    ns = meta.get("namespace")
    if crd.namespaced != (ns is not None):
        problems.append(f"metadata.namespace: {crd.kind} is {'namespaced' if crd.namespaced else 'cluster-scoped'}")
    if ns is not None and (not isinstance(ns, str) or not dns_label_ok(ns)):
        problems.append(f"metadata.namespace: {ns!r} is not an RFC 1123 label")
    validator = jsonschema.Draft7Validator(crd.schema)
    for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        problems.append(f"{_path(err.absolute_path)}: {err.message[:200]}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="get-k8s-crds", description=__doc__.split("\n", 1)[0])
    ap.add_argument("action", nargs="?", choices=("fetch", "where"), default="fetch")
    ap.add_argument("--if-missing", action="store_true", help="fetch only when no folder holds them")
    ap.add_argument("--dest", type=Path, help="folder to fetch into (default: the cache)")
    args = ap.parse_args(argv)
    found, searched = find_crds(dev=True)
    if args.action == "where" or (args.if_missing and found):
        if found is not None and find_crds()[0] is None:  # only ../shared: `netauto validate` would still skip K8S-01
            print(dev_copy_note(found, DIR_ENV), file=sys.stderr)
        print(found or f"not found (looked in {', '.join(map(str, searched))})")
        return 0 if found else 1
    try:
        print(fetch(args.dest))
    except (OSError, CrdError) as exc:
        print(f"get-k8s-crds: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
