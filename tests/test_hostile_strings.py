"""Generated injection test: every string field of the inventory schema gets every hostile token.

The fields come from the pydantic models (a new field is covered without editing this file): every `str`
field, every `list[str]` item and every `dict[str, ...]` key, found by walking `Inventory`'s annotations.
Each is injected into a copy of a shipped inventory (the model instance the field belongs to is found in one of
BASES) and must either be refused by the load (InventoryError: exit 2, one line, file and line) or leave every
rendered file with the same structure as a plain value (scripts pass `sh -n` and shellcheck, and the injected
text never reaches a script).
"""

from __future__ import annotations

import copy
import functools
import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import pytest
import yaml
from conftest import ROOT
from pydantic import BaseModel

from netauto.errors import InventoryError
from netauto.inventory.loader import load_inventory
from netauto.inventory.schema import Inventory
from netauto.pipeline import build_cluster, render_files

BASES = (ROOT / "inventory", ROOT / "examples" / "cluster-64" / "inventory",
         ROOT / "examples" / "b300-2plane" / "inventory", ROOT / "examples" / "gpu-cloud-tenants" / "inventory")
PAYLOADS = {
    "newline": "x\ntouch /tmp/PWNED #",
    "single-quote": "x'y",
    "double-quote": 'x"y',
    "command-substitution": "x$(touch /tmp/PWNED)",
    "backtick": "x`touch /tmp/PWNED`",
    "semicolon": "x; touch /tmp/PWNED",
    "nul": "x\0y",
    "non-ascii": "x\u00e9\u202ey",
    "over-long": "x" * 5000,
}
PLAIN = "plainvalue"
MARK = "PWNED"


def _unwrap(annotation: Any) -> list[Any]:
    """The alternatives of an Optional/Union (None dropped), Annotated stripped."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return [a for arg in get_args(annotation) if arg is not type(None) for a in _unwrap(arg)]
    if getattr(annotation, "__metadata__", None) is not None:  # Annotated[...]
        return _unwrap(get_args(annotation)[0])
    return [annotation]


def _is_str(annotation: Any) -> bool:
    return any(a is str for a in _unwrap(annotation))


def string_slots(model: type[BaseModel] = Inventory, seen: set[type] | None = None) -> Iterator[tuple[type, str, str]]:
    """(model class, field name, how) for every string-bearing field: how is value, item or key."""
    seen = seen if seen is not None else set()
    if model in seen:
        return
    seen.add(model)
    for name, field in model.model_fields.items():
        for alt in _unwrap(field.annotation):
            if alt is str:
                yield model, name, "value"
            origin = get_origin(alt)
            if origin is list and _is_str(get_args(alt)[0]):
                yield model, name, "item"
            if origin is dict and _is_str(get_args(alt)[0]):
                yield model, name, "key"
            if origin is dict and any(get_origin(v) is dict and _is_str(get_args(v)[0]) for v in _unwrap(get_args(alt)[1])):
                yield model, name, "inner-key"
            if origin is dict and any(get_origin(v) is dict and _is_str(get_args(v)[1]) for v in _unwrap(get_args(alt)[1])):
                yield model, name, "inner-value"
            if origin is dict and _is_str(get_args(alt)[1]):
                yield model, name, "dict-value"
            for inner in [alt, *get_args(alt)]:
                for sub in _unwrap(inner):
                    for deeper in [sub, *get_args(sub)]:
                        if isinstance(deeper, type) and issubclass(deeper, BaseModel):
                            yield from string_slots(deeper, seen)


def _instances(data: Any, model: Any, path: tuple) -> Iterator[tuple[type, tuple]]:
    """(model class, path) of every model instance in the raw inventory data."""
    for alt in _unwrap(model):
        if isinstance(alt, type) and issubclass(alt, BaseModel) and isinstance(data, dict):
            yield alt, path
            for name, field in alt.model_fields.items():
                if name in data:
                    yield from _instances(data[name], field.annotation, path + (name,))
        elif get_origin(alt) is list and isinstance(data, list):
            for i, item in enumerate(data):
                yield from _instances(item, get_args(alt)[0], path + (i,))
        elif get_origin(alt) is dict and isinstance(data, dict):
            for key, item in data.items():
                yield from _instances(item, get_args(alt)[1], path + (key,))


# Optional parts no shipped inventory uses, added to the copies so their string fields are injected too.
EXTRAS: dict[Path, dict[tuple, dict[str, Any]]] = {
    BASES[0]: {
        ("fabric",): {"switch_hardware": {"leaf": "SN5600", "spine": "SN5600", "super_spine": "SN5600"}},
        ("features",): {"verify": {"thresholds": {"np_cnp_sent": 5}},
                        "telemetry": {"otlp": {"host": "192.168.200.9", "port": 4317}, "interval_s": 1}},
        ("overrides",): {"devices": {"su1-r1-leaf": {"hwsku": "ACS-SN5600", "mgmt_ip": "192.168.200.50"}},
                         "ports": [{"device": "su1-r1-leaf", "port": "swp1s0"}]},
        ("servers",): {"hosts": {"gpu01": {"profile": "dgx-h100", "macs": {"rail0": "b8:3f:d2:10:00:01"}}}},
        ("cabling",): {"links": {"su1-r0-leaf:swp1s0": 5}, "site_distance_m": {"1-2": 100}},
    },
    BASES[1]: {
        ("oob",): {"site_uplink": {"port": 49, "speed": "100G", "addresses": ["10.9.0.0/31", "10.9.0.2/31"],
                                   "gateways": ["10.9.0.1", "10.9.0.3"]}},
    },
}


def _raw(base: Path) -> dict[str, Any]:
    return copy.deepcopy(_raw_cached(base))


@functools.lru_cache(maxsize=None)
def _raw_cached(base: Path) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for file in sorted(base.glob("*.yaml")):
        merged.update(yaml.safe_load(file.read_text()) or {})
    for path, extra in EXTRAS.get(base, {}).items():
        node = merged
        for part in path:
            node = node.setdefault(part, {})
        node.update(extra)
    return merged


def test_the_extras_load() -> None:
    """The extended base inventories are valid: an injected value is the only thing wrong with them."""
    for base in BASES:
        data = _raw(base)
        assert Inventory.model_validate(data)


@functools.lru_cache(maxsize=None)
def _locate(model: type) -> tuple[Path, tuple]:
    for base in BASES:
        for cls, path in _instances(_raw(base), Inventory, ()):
            if cls is model:
                return base, path
    raise AssertionError(f"no inventory in BASES has a {model.__name__}: add one so its string fields are tested")


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


def _sample(model: type, field: str) -> Any:
    """A valid value for a new entry of a dict field (the key is what is injected)."""
    annotation = model.model_fields[field].annotation
    value = get_args(next(a for a in _unwrap(annotation) if get_origin(a) is dict))[1]
    alt = _unwrap(value)[0]
    if isinstance(alt, type) and issubclass(alt, BaseModel):
        return {}
    return {} if get_origin(alt) is dict else 1


def inject(model: type, field: str, how: str, payload: str) -> tuple[Path, dict[str, Any]]:
    base, path = _locate(model)
    data = _raw(base)
    node = _get(data, path)
    current = node.get(field)
    if how == "value":
        node[field] = payload
    elif how == "item":
        node[field] = [payload, *(current or [])[1:]]
    elif how == "key":
        entries = dict(current or {})
        first = next(iter(entries), None)
        entries[payload] = entries.pop(first) if first is not None else _sample(model, field)
        node[field] = entries
    elif how in ("inner-key", "inner-value", "dict-value"):
        entries = dict(current or {"plain": {}})
        outer = next(iter(entries))
        if how == "dict-value":
            entries[outer] = payload
        else:
            inner = dict(entries[outer] or {"leaf": "x"})
            first = next(iter(inner))
            if how == "inner-key":
                inner[payload] = inner.pop(first)
            else:
                inner[first] = payload
            entries[outer] = inner
        node[field] = entries
    return base, data


SLOTS = sorted({(m.__name__, f, h): (m, f, h) for m, f, h in string_slots()}.items())


def test_the_walk_finds_the_free_text_fields() -> None:
    """The walk is not vacuous: the fields of the issue's findings are among the slots."""
    names = {key for key, _ in SLOTS}
    for expected in [("ServerProfile", "model", "value"), ("ServerGroup", "description", "value"),
                     ("Servers", "hosts", "key"), ("Inventory", "networks", "key"), ("PortOverride", "port", "value"),
                     ("RailNic", "rdma", "value"), ("Bom", "nic_cages", "key")]:
        assert expected in names
    assert len(SLOTS) >= 50


def _dump(data: dict[str, Any]) -> str:
    return yaml.dump(data, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), allow_unicode=True, sort_keys=False,
                     width=10**6)


def _load(base: Path, data: dict[str, Any], tmp: Path) -> Any:
    folder = tmp / "inv"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    (folder / "inventory.yaml").write_text(_dump(data))
    return load_inventory(folder)


def _harmless(model: type, field: str, how: str, payload: str, base: Path, tmp: Path) -> None:
    """The load accepted `payload`: every rendered file must be the plain value's, structure for structure."""
    _, plain_data = inject(model, field, how, PLAIN)
    _, data = inject(model, field, how, payload)
    renders = []
    for name, d in (("plain", plain_data), ("hostile", data)):
        folder = tmp / name
        folder.mkdir()
        (folder / "inventory.yaml").write_text(_dump(d))
        renders.append({f"{a.device}/{a.path}": a.content for a in render_files(build_cluster(folder))})
    plain, hostile = renders
    assert sorted(plain) == sorted(hostile)
    for rel, text in hostile.items():
        if text == plain[rel]:
            continue
        assert text.replace(payload, PLAIN) == plain[rel], f"{rel}: the payload changed more than its own text"
        assert "\n" not in payload, f"{rel}: a newline reached the file"
        assert not rel.endswith(".sh"), f"{rel}: {model.__name__}.{field} reaches a shell script untyped"


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
@pytest.mark.parametrize("slot", [key for key, _ in SLOTS], ids=lambda k: ".".join(k))
def test_hostile_string_refused_or_harmless(slot: tuple[str, str, str], payload: str, tmp_path: Path) -> None:
    model, field, how = dict(SLOTS)[slot]
    text = PAYLOADS[payload]
    base, data = inject(model, field, how, text)
    try:
        _load(base, data, tmp_path)
    except InventoryError as exc:
        assert exc.file is not None and exc.line is not None, str(exc)
        assert "\n" not in str(exc).replace("\\n", "")
        assert MARK not in str(exc) or "\\n" in str(exc) or len(str(exc)) < 400
        return
    _harmless(model, field, how, text, base, tmp_path)


@pytest.mark.tools
def test_issue_reproduction_refused_by_the_cli(tmp_path: Path) -> None:
    """The issue's `model` newline: exit 2, one line naming file:line, nothing rendered."""
    inv = tmp_path / "inv"
    shutil.copytree(ROOT / "inventory", inv)
    topo = inv / "topology.yaml"
    text = topo.read_text()
    assert "model: NVIDIA DGX H100" in text
    topo.write_text(text.replace("model: NVIDIA DGX H100", 'model: "NVIDIA DGX H100\\ntouch /tmp/PWNED #"', 1))
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "netauto", "render", "-i", str(inv), "-o", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    line = next(i for i, ln in enumerate(topo.read_text().splitlines(), 1) if "PWNED" in ln)
    assert f"topology.yaml:{line}:" in run.stderr and "servers.profiles.dgx-h100.model" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
    assert not out.exists()


def test_yaml_literal_types_only() -> None:
    """Literal-typed fields are strings too; they refuse anything outside their choices (no walk needed)."""
    assert get_origin(Inventory.model_fields["fabric"].annotation.model_fields["fec"].annotation) is Literal
