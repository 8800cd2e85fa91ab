"""NVUE startup.yaml against NVIDIA's NVUE schema (PyPI nvueschema), per Cumulus release.

- every Cumulus switch of every shipped fabric, rendered for every supported release, has no unknown key and
  no bad value (the renderer spells per release from platforms/data/nos_cumulus.yaml);
- the checker agrees with nvueschema's own pydantic models on what they can see (values), and additionally
  finds unknown keys, which the models ignore;
- `netauto validate` reports mutations (`ip:` on 5.15, ECN `on`, an integer as-path-prepend, an unknown key)
  as NVUE-01 errors naming device, file, line and key path.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
from pathlib import Path

import pytest
from conftest import EXAMPLES, shipped_inventories

from netauto.model.types import SwitchTelemetry
from netauto.pipeline import build_cluster
from netauto.platforms.nos import cumulus_releases, nvue_spelling
from netauto.render.nvue import startup_yaml
from netauto.validate.nvue_schema import check, line_of
from netauto.formats.nvue import parse_nvue

from _validate_helpers import Tree, errors, render_to, show

SHIPPED = [p for p in shipped_inventories() if "10k" not in str(p)]
LEAF_2SU = "su1-r0-leaf"
NVUE = "etc/nvue.d/startup.yaml"


def _cumulus(inventory: Path, limit: int | None = None):
    """The compute model and every Cumulus switch of the cluster (compute fabric and networks: MLAG, bonds, VRR)."""
    cluster = build_cluster(inventory)
    model = cluster.compute
    fabrics = [model] + [p.fabric for p in cluster.networks]
    switches = [s for f in fabrics for s in f.switches if s.nos == "cumulus"]
    if limit:  # one of each role is enough for the big example
        by_role: dict[tuple[str, str], object] = {}
        for s in switches:
            by_role.setdefault((s.network, s.role), s)
        switches = list(by_role.values())
    return model, switches


@pytest.mark.parametrize("inventory", SHIPPED + [EXAMPLES / "10k-3tier" / "inventory"], ids=lambda p: p.parent.name)
def test_every_release_renders_schema_clean(inventory: Path):
    model, switches = _cumulus(inventory, limit=3 if "10k" in str(inventory) else None)
    assert switches
    for release in cumulus_releases():
        for sw in switches:
            sw = copy.copy(sw)
            sw.cumulus_release = release
            # every optional key too: wait-for-install is off by default, establish-wait-time unset
            sw.bgp = dataclasses.replace(sw.bgp, wait_for_install=True, establish_wait=30)
            sw.telemetry = SwitchTelemetry(otlp_host="192.168.200.9", otlp_port=4317, interval_s=1)  # system telemetry
            text = startup_yaml(sw, model)
            problems = check(parse_nvue(text), release)
            assert not problems, f"{sw.name} CL {release}: " + "; ".join(
                f"{'.'.join(p.path)} (line {line_of(text, p.path)}): {p.message}" for p in problems[:5])


def test_spelling_tables_follow_the_schema():
    """The per-release table says `ip`/`ipv4` and `enable`/`state` exactly where the schema does."""
    from netauto.validate.nvue_schema import schema

    for release in cumulus_releases():
        nv = nvue_spelling(release)
        s = schema(release)
        iface = s.fields("NvueConfigInterfaceEntry")
        assert nv.ipv4_container in iface, release
        assert ("ip" in iface) == (nv.ipv4_container == "ip"), release
        roce = s.fields(s.fields("NvueConfigQos")["roce"].model)
        assert nv.toggle_key in roce and roce[nv.toggle_key].check(nv.on) is None, release
        auto_save = s.fields(s.fields(s.fields("NvueConfigSystem")["config"].model)["auto-save"].model)
        assert auto_save[nv.auto_save_key].check(nv.auto_save_off) is None, release


MUTATIONS = {
    # name: (release, edit of the 5.15 / 5.14 document, expected key path, expected message piece)
    "ip-on-5.15": ("5.15", lambda d: d["interface"]["lo"].__setitem__("ip", d["interface"]["lo"].pop("ipv4")),
                   ("interface", "lo", "ip"), "unknown key `ip`"),
    "ecn-on": ("5.14", lambda d: d["qos"]["congestion-control"]["default-global"]["traffic-class"]["3"].__setitem__("ecn", "on"),
               ("qos", "congestion-control", "default-global", "traffic-class", "3", "ecn"), "enable | disable"),
    "ecn-enabled-5.15": ("5.15", lambda d: d["qos"]["congestion-control"]["default-global"]["traffic-class"]["3"].__setitem__("ecn", "enabled"),
                         ("qos", "congestion-control", "default-global", "traffic-class", "3", "ecn"), "enable | disable"),
    "as-path-prepend-int": ("5.14", lambda d: d["router"]["policy"]["route-map"]["FABRIC-OUT"]["rule"]["10"]["set"]["as-path-prepend"].__setitem__("as", 65101),
                            ("router", "policy", "route-map", "FABRIC-OUT", "rule", "10", "set", "as-path-prepend", "as"), "must be a string"),
    "unknown-key": ("5.14", lambda d: d["router"]["bgp"].__setitem__("colour", "blue"), ("router", "bgp", "colour"), "unknown key"),
}


@pytest.fixture(scope="module")
def leaf_doc():
    model, switches = _cumulus(EXAMPLES / "2su-leaf-subnet" / "inventory")
    return model, next(s for s in switches if s.role == "leaf")


@pytest.mark.parametrize("name", MUTATIONS)
def test_checker_catches_mutation(name, leaf_doc):
    release, edit, path, says = MUTATIONS[name]
    model, sw = leaf_doc
    sw = copy.copy(sw)
    sw.cumulus_release = release
    doc = parse_nvue(startup_yaml(sw, model))
    edit(doc)
    problems = check(doc, release)
    assert any(p.path == path and says in p.message for p in problems), problems


@pytest.mark.parametrize("release", ["5.14", "5.15"])
def test_checker_agrees_with_nvueschema_models(release, leaf_doc):
    """Whatever pydantic's model rejects, the checker rejects too (models ignore unknown keys: the checker is
    stricter there). Imports the release's models: slow, so two releases only."""
    models = importlib.import_module(f"nvueschema.models.v{release.replace('.', '_')}")
    model, sw = leaf_doc
    sw = copy.copy(sw)
    sw.cumulus_release = release
    clean = parse_nvue(startup_yaml(sw, model))
    models.NvueConfig.model_validate(clean)  # the real models accept the rendered document
    assert check(clean, release) == []
    for name, (rel, edit, path, _says) in MUTATIONS.items():
        if rel != release or name.startswith(("ip-", "unknown")):
            continue
        doc = copy.deepcopy(clean)
        edit(doc)
        with pytest.raises(Exception) as exc:  # pydantic.ValidationError
            models.NvueConfig.model_validate(doc)
        assert ".".join(path) in str(exc.value).replace("\n  ", ".").replace("\n", "."), str(exc.value)
        assert any(p.path == path for p in check(doc, release))


@pytest.fixture(scope="module")
def rendered_2su(tmp_path_factory) -> Path:
    return render_to(EXAMPLES / "2su-leaf-subnet" / "inventory", tmp_path_factory.mktemp("r2su") / "out")


def test_validate_names_device_file_line_key(rendered_2su, tmp_path):
    """`netauto validate` on a tree with 5.14 spelling mistakes in a 5.15 fabric: NVUE-01 with device and line."""
    tree = Tree(rendered_2su, tmp_path / "configs", fabric="gpu-2su")
    tree.replace(LEAF_2SU, NVUE, "      lo:\n        type: loopback\n        ipv4:", "      lo:\n        type: loopback\n        ip:")
    tree.replace(LEAF_2SU, NVUE, "ecn: enable", "ecn: on")
    tree.replace("spine01", NVUE, "as: '4200000100'", "as: 4200000100")  # an integer where the schema wants a string
    tree.replace("spine01", NVUE, "      hostname: spine01\n", "      hostname: spine01\n      colour: blue\n")
    result = tree.validate(EXAMPLES / "2su-leaf-subnet" / "inventory")
    found = [f for f in result.findings if f.rule == "NVUE-01"]
    text = tree.path(LEAF_2SU, NVUE).read_text().splitlines()
    ip = next(f for f in found if "interface.lo.ip:" in f.message)
    assert ip.device == LEAF_2SU and ip.file == NVUE and text[ip.line - 1].strip() == "ip:", show(result)
    ecn = next(f for f in found if ".ecn:" in f.message)
    assert ecn.device == LEAF_2SU and text[ecn.line - 1].strip() == "ecn: on", show(result)
    spine = tree.path("spine01", NVUE).read_text().splitlines()
    prepend = next(f for f in found if "as-path-prepend.as:" in f.message)
    assert prepend.device == "spine01" and "must be a string" in prepend.message
    assert spine[prepend.line - 1].strip() == "as: 4200000100"
    colour = next(f for f in found if "system.colour:" in f.message)
    assert colour.device == "spine01" and "unknown key `colour`" in colour.message
    assert spine[colour.line - 1].strip() == "colour: blue"
    assert {f.device for f in found} == {LEAF_2SU, "spine01"}
    assert "NVUE-01" in errors(result)


def test_line_of_finds_nested_keys():
    text = "# c\n- set:\n    a:\n      b:\n        c: 1\n      d: {}\n    e:\n      b: 2\n"
    assert line_of(text, ("a", "b", "c")) == 5
    assert line_of(text, ("e", "b")) == 8
    assert line_of(text, ("a", "x")) == 3  # missing key: its nearest ancestor
    assert line_of(text, ("x",)) == 2
    assert line_of("a: 1\n", ("a",)) is None  # not a startup.yaml


@pytest.mark.parametrize("release", ["5.14", "5.15"])
def test_mlag_peer_session_keys_against_the_models(release):
    """An MLAG access switch's peerlink.4094 (`type sub`, `base-interface`, `vlan`) and its BGP neighbour pass
    NVIDIA's pydantic models and the checker; a VLAN out of range or a misspelt key is caught by both / the checker."""
    models = importlib.import_module(f"nvueschema.models.v{release.replace('.', '_')}")
    model, switches = _cumulus(EXAMPLES / "cluster-64" / "inventory")
    sw = copy.copy(next(s for s in switches if s.name == "fe-g1-acc0"))
    sw.cumulus_release = release
    doc = parse_nvue(startup_yaml(sw, model))
    assert doc["interface"]["peerlink.4094"] == {"type": "sub", "base-interface": "peerlink", "vlan": 4094}
    assert doc["vrf"]["default"]["router"]["bgp"]["neighbor"]["peerlink.4094"]["peer-group"] == "PEERLINK"
    models.NvueConfig.model_validate(doc)
    assert check(doc, release) == []
    bad = copy.deepcopy(doc)
    bad["interface"]["peerlink.4094"]["vlan"] = 4095
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="vlan"):
        models.NvueConfig.model_validate(bad)
    assert [p.path for p in check(bad, release)] == [("interface", "peerlink.4094", "vlan")]
    bad = copy.deepcopy(doc)
    bad["interface"]["peerlink.4094"]["base-interfaces"] = bad["interface"]["peerlink.4094"].pop("base-interface")
    assert any(p.path == ("interface", "peerlink.4094", "base-interfaces") and "unknown key" in p.message
               for p in check(bad, release))
