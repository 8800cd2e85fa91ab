"""The block-YAML emitter of startup.yaml: shared subtrees (one dict object under many parents, as the NVUE
builder shares a port's `link` node) come out exactly as separate copies would, at every depth."""

from __future__ import annotations

import copy

import yaml

from netauto.render.yaml_block import dump_set


def test_a_shared_subtree_is_written_like_independent_copies_at_any_depth() -> None:
    link = {"mtu": 9216, "speed": "400G", "state": {"up": {}}}
    doc = {"interface": {"swp1": {"type": "swp", "link": link}, "swp2": {"type": "swp", "link": link},
                         "swp3": {"type": "swp", "link": link}},
           "deeper": {"x": {"y": {"link": link}}},  # the same object at another indent
           "empty": {"leaf": {}}}
    shared = dump_set(doc)
    assert shared == dump_set(copy.deepcopy(doc))  # deepcopy: no object shared any more
    parsed = yaml.safe_load(shared)[0]["set"]
    assert parsed["interface"]["swp3"]["link"] == link
    assert parsed["deeper"]["x"]["y"]["link"] == link
    assert parsed["empty"] == {"leaf": {}}
    assert shared.count("speed: 400G") == 4


def test_booleans_are_refused_and_ambiguous_strings_quoted() -> None:
    assert "'yes'" in dump_set({"a": "yes"}) and "'1.0'" in dump_set({"a": "1.0"})
    assert dump_set({"a": "on"}) == "- set:\n    a: on\n"  # NVUE reads YAML 1.2: `on` is its own bare word
    for doc in ({"a": True}, {"a": {1: "x"}, "b": {True: "y"}}):  # True == 1: a cached key `1` must not answer
        try:
            dump_set(doc)
        except TypeError:
            pass
        else:
            raise AssertionError(f"a YAML boolean must be refused: {doc}")


def test_the_letter_fast_path_agrees_with_the_yaml_resolver() -> None:
    """Plain words starting with a letter skip PyYAML's resolver; for each, the resolver must say str."""
    from netauto.render.yaml_block import _RESOLVER, LETTER_WORDS, scalar

    words = ["swp1", "spine1 swp3", "Ethernet0", "su1-r0-leaf", "lossless", "external", "mgmt", "y", "n", "Yes",
             "NULL", "Off", "e1", "inf", "nan", "x:y", "a.b/c", "lanes-per-port", *sorted(LETTER_WORDS)]
    for word in words:
        str_tag = _RESOLVER.resolve(yaml.ScalarNode, word, (True, False)) == "tag:yaml.org,2002:str"
        text = scalar(word)
        assert (text == word) == (str_tag or word in ("on", "off")), (word, text)
        assert yaml.safe_load(f"k: {text}")["k"] == word or word in ("on", "off")


def test_one_writer_for_startup_yaml_and_the_monitoring_files() -> None:
    """NVUE's startup.yaml and the monitoring files are written by one block-YAML writer (issue 35): the same
    layout, only the scalar spelling differs (NVUE's bare on/off and no YAML booleans; PyYAML's own quoting)."""
    import importlib.util

    from netauto.render import monitoring as monitoring_render
    from netauto.render import yaml_block

    assert importlib.util.find_spec("netauto.monitoring.yaml_dump") is None
    assert monitoring_render.dump is yaml_block.dump
    doc = {"system": {"hostname": "leaf1"}, "interface": {"swp1": {"link": {"mtu": 9216, "state": {"up": {}}}}},
           "router": {"bgp": {"autonomous-system": 65101, "neighbor": {}}}}
    as_pyyaml = yaml.safe_dump([{"set": doc}], sort_keys=False, width=10_000, allow_unicode=False)
    assert dump_set(doc) == as_pyyaml
    assert yaml_block.dump({"k": [{"set": doc}]}) == yaml.safe_dump({"k": [{"set": doc}]}, sort_keys=False,
                                                                     width=10_000, allow_unicode=False)
