"""formats.fastyaml_similar: a file read as a difference from a similar one gives what fastyaml.load gives (compared
by repr: types, key order), whatever the difference; the reference's tree is never changed; and the walks that
memoise on the shared subtrees (NVUE-01's schema walk, AR-05's spelling walk) still name the one switch that
differs, whichever of the two was read first."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from conftest import EXAMPLES

from netauto.formats import fastyaml
from netauto.formats.fastyaml_similar import Similar
from netauto.formats.nvue import parse_nvue
from netauto.pipeline import render
from netauto.validate.nvue_schema import Memo, check
from netauto.validate.rules.consistency import SpellMemo, _spelling

DOC = textwrap.dedent("""\
    # header a
    - set:
        system:
          hostname: a
        interface:
          swp1:
            type: swp
            description: to x
            link:
              mtu: 9216
              state:
                up: {}
          10.0.0.0/31: {}
        list:
          - one
          - 2
          - key: v
            other: w
          -
            nested: 1
    """)

MUTATIONS = {  # name: (old, new) in DOC
    "value": ("mtu: 9216", "mtu: 1500"),
    "value type": ("mtu: 9216", "mtu: '9216'"),
    "bool": ("mtu: 9216", "mtu: true"),
    "yaml 1.1 bool": ("type: swp", "type: on"),
    "null": ("mtu: 9216", "mtu: ~"),
    "flow list": ("up: {}", "up: [a, b]"),
    "key of a value": ("10.0.0.0/31: {}", "10.0.0.2/31: {}"),
    "key of a block": ("swp1:", "swp2:"),
    "key of a block to a duplicate": ("swp1:", "10.0.0.0/31:"),
    "key of a value to a duplicate": ("10.0.0.0/31: {}", "swp1: {}"),
    "key to an int": ("swp1:", "7:"),
    "quoted key": ("type: swp", "'type': swp"),
    "spacing": ("type: swp", "type:    swp"),
    "block to value": ("link:", "link: 5"),
    "value to block": ("hostname: a", "hostname:"),
    "item": ("- one", "- three"),
    "item to mapping": ("- one", "- a: b"),
    "item to empty": ("- one", "-"),
    "first key of an item": ("- key: v", "- key: z"),
    "first key of an item renamed": ("- key: v", "- kee: v"),
    "item indentation": ("- key: v", "-  key: v"),
    "empty item": ("      -\n", "      - x\n"),
    "comment": ("# header a", "# header b"),
    "comment to content": ("# header a", "header: b"),
    "trailing comment": ("mtu: 9216", "mtu: 9216 # x"),
    "anchor": ("mtu: 9216", "mtu: &a 9216"),
    "tab": ("mtu: 9216", "mtu:\t9216"),
    "indentation": ("        type: swp", "          type: swp"),
    "added line": ("mtu: 9216", "mtu: 9216\n          fec: rs"),
    "document marker": ("# header a", "---"),
}


def _outcome(load: Callable[[str], Any], text: str) -> str:
    try:
        return repr(load(text))
    except yaml.YAMLError as exc:
        return f"error {type(exc).__name__}"


@pytest.mark.parametrize("yaml12", [True, False], ids=["yaml12", "yaml11"])
@pytest.mark.parametrize("name", MUTATIONS)
def test_a_difference_reads_as_the_whole_file(name: str, yaml12: bool):
    old, new = MUTATIONS[name]
    assert old in DOC
    text = DOC.replace(old, new, 1)
    sim = Similar(yaml12)
    ref = sim.load(DOC)
    before = repr(ref)
    assert repr(ref) == repr(fastyaml.load(DOC, yaml12))
    assert _outcome(sim.load, text) == _outcome(lambda t: fastyaml.load(t, yaml12), text)
    assert repr(ref) == before  # the reference (shared with the derived tree) is unchanged
    assert _outcome(sim.load, DOC) == before  # and the reference reads the same again


def test_a_small_difference_shares_the_rest():
    """The fast path is taken (else the tests above would only test the fallback)."""
    sim = Similar(True)
    ref = sim.load(DOC)
    got = sim.load(DOC.replace("mtu: 9216", "mtu: 1500"))
    assert got[0]["set"]["interface"]["swp1"]["link"]["mtu"] == 1500
    assert got[0]["set"]["system"] is ref[0]["set"]["system"]  # shared, not read again
    assert got[0]["set"]["interface"]["swp1"]["link"] is not ref[0]["set"]["interface"]["swp1"]["link"]
    assert ref[0]["set"]["interface"]["swp1"]["link"]["mtu"] == 9216


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[tuple[str, str]]]:
    """(device, text) of every startup.yaml and netplan file of two shipped fabrics."""
    out: dict[str, list[tuple[str, str]]] = {"etc/nvue.d/startup.yaml": [], "etc/netplan/60-rails.yaml": []}
    for inv in ("2su-leaf-subnet", "mixed-sonic"):
        for art in render(EXAMPLES / inv / "inventory")[1]:
            if art.path in out:
                out[art.path].append((art.device, art.content))
    return out


def test_shipped_files_read_the_same(rendered: dict[str, list[tuple[str, str]]]):
    for path, yaml12 in (("etc/nvue.d/startup.yaml", True), ("etc/netplan/60-rails.yaml", False)):
        sim = Similar(yaml12)
        texts = [t for _, t in rendered[path]]
        assert len(texts) > 4
        got = [sim.load(t) for t in texts]
        assert [repr(g) for g in got] == [repr(fastyaml.load(t, yaml12)) for t in texts], path
        assert sum(map(len, sim.refs.values())) < len(texts)  # most files were read as differences


def _leaves(rendered: dict[str, list[tuple[str, str]]]) -> list[str]:
    texts = [t for dev, t in rendered["etc/nvue.d/startup.yaml"] if dev.startswith("su1-") and "leaf" in dev]
    assert len(texts) >= 3 and "    mtu: 9216\n" in texts[1]
    return texts


@pytest.mark.parametrize("bad_first", [False, True], ids=["bad-derived", "bad-reference"])
def test_schema_memo_names_the_switch_that_differs(rendered: dict[str, list[tuple[str, str]]], bad_first: bool):
    """Two leaves differing in one value deep in the tree, one invalid (MTU above the schema's maximum): the
    memoised walk names that one and only that one, as the walk without a memo does."""
    texts = _leaves(rendered)
    bad = texts[1].replace("    mtu: 9216\n", "    mtu: 99999\n", 1)
    docs = [bad, texts[0], texts[2], texts[1]] if bad_first else [texts[0], bad, texts[2], texts[1]]
    sim, memo = Similar(True), Memo()
    with_memo = [check(parse_nvue(t, sim), "5.15", memo) for t in docs]
    without = [check(parse_nvue(t), "5.15") for t in docs]
    assert with_memo == without
    flagged = [i for i, problems in enumerate(with_memo) if problems]
    assert flagged == [0 if bad_first else 1]
    assert any(p.path[-1] == "mtu" for p in with_memo[flagged[0]])


@pytest.mark.parametrize("bad_first", [False, True], ids=["bad-derived", "bad-reference"])
def test_spelling_memo_names_the_switch_that_differs(rendered: dict[str, list[tuple[str, str]]], bad_first: bool):
    texts = _leaves(rendered)
    assert "    fec: rs\n" in texts[1]
    bad = texts[1].replace("    fec: rs\n", "    enable: on\n", 1)  # `enable` is `state` from CL 5.15
    docs = [bad, texts[0], texts[1]] if bad_first else [texts[0], bad, texts[1]]
    sim, memo = Similar(True), SpellMemo()
    with_memo = [_spelling(parse_nvue(t, sim), True, memo) for t in docs]
    assert with_memo == [_spelling(parse_nvue(t), True) for t in docs]
    assert [i for i, bad_keys in enumerate(with_memo) if bad_keys] == [0 if bad_first else 1]
