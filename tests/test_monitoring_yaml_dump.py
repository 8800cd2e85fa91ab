"""The monitoring folder's YAML writer (render.yaml_block with PyYAML's spelling) writes exactly what `yaml.safe_dump` writes (it replaced it for speed)."""

from __future__ import annotations

import yaml

from netauto.render.yaml_block import dump

AWKWARD = ["plain", "netauto:port_expected", 'up{job="netauto-x",device="leaf1"}', "yes", "No", "null", "~", "",
           " lead", "trail ", "a: b", "a #b", "ends:", "-dash", "- item", "?q", ":c", "...", "---x", ".inf", "0x1F",
           "1e3", "12:30", "2024-01-01", "007", "'single'", '"double"', "tab\there", "new\nline", "naïve", "x" * 5000,
           "#hash", "&anchor", "*alias", "!tag", "%pct", "@at", "`tick", "|pipe", ">gt", "{", "[", ",", "a, b",
           "a:b c", "{{ $labels.device }} is down", "=", "<<", "on", "Off", "TRUE", "y", "n"]


def _agrees(doc: dict) -> None:
    assert dump(doc) == yaml.safe_dump(doc, sort_keys=False, width=10_000, allow_unicode=False)


def test_scalars_as_values_keys_and_items() -> None:
    for s in AWKWARD:
        _agrees({"k": s})
        _agrees({s: 1})
        _agrees({"list": [s, 1, {}, []]})
        _agrees({"nested": {"deeper": [{s: s, "also": [s]}]}})


def test_block_layout() -> None:
    doc = {"groups": [{"name": "g", "rules": [{"record": "r", "expr": "vector(1)", "labels": {"device": "d"}}]}],
           "tests": [[1, 2], [], [[3]], {"a": {}, "b": []}], "empty": {}, "n": 3}
    _agrees(doc)


def test_shared_subtree_and_other_types_fall_back() -> None:
    shared = {"a": "b"}
    _agrees({"x": shared, "y": shared})  # PyYAML writes an anchor and an alias
    _agrees({"flag": True, "none": None, "float": 1.5})


def test_cached_scalars_keep_their_type() -> None:
    _agrees({"a": {1: "x"}, "b": {True: "y"}, "c": ["1", 1, "1"]})


def _groups(doc: dict) -> list[tuple[dict, object]]:
    return [({k: v for k, v in g.items() if k != "rules"}, iter(g["rules"])) for g in doc["groups"]]


def test_streamed_groups_are_the_whole_dump() -> None:
    """dump_groups (the intent file, one rule at a time) writes what dumping the whole document writes, across
    its batches, and leaves to the whole dump what it does not know."""
    from netauto.render import yaml_block as yaml_dump

    def known(text: str) -> bool:  # a scalar this writer writes itself (others send the whole file to PyYAML)
        try:
            return bool(yaml_dump.PyYamlSpelling().value(text))
        except yaml_dump.Fallback:
            return False

    def rules(n: int) -> list[dict]:  # every item its own dicts, as the intent rules are (no YAML aliases)
        return [{"record": "r", "expr": "vector(1)", "labels": {"device": s or "x", "su": s}}
                for s in AWKWARD * n if known(s)]

    doc = {"groups": [{"name": "a", "interval": "2s", "rules": rules(3)}, {"name": "b", "rules": rules(1)[:1]}]}
    original, yaml_dump.BATCH = yaml_dump.BATCH, 7
    try:
        assert yaml_dump.dump_groups(_groups(doc), "rules", "# head\n") == "# head\n" + dump(doc)
    finally:
        yaml_dump.BATCH = original
    assert dump(doc) == yaml.safe_dump(doc, sort_keys=False, width=10_000, allow_unicode=False)
    for awkward in ({"groups": [{"name": "a", "rules": [{"flag": True}]}]},  # a bool: PyYAML's own writer
                    {"groups": [{"name": "a", "rules": [{"long": "x" * 5000}]}]},
                    {"groups": [{"name": "a", "rules": [{"two": "new\nline"}]}]},
                    {"groups": [{"name": "a", "rules": []}]}, {"groups": []}):
        assert yaml_dump.dump_groups(_groups(awkward), "rules") is None
