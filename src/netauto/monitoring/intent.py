"""The intent rules file's text, written directly: one constant recording rule per design fact, tens of thousands
of them on a 10k-GPU fabric (PyYAML's emitter took ~90 s there). The text is byte for byte what
`yaml.safe_dump(doc, sort_keys=False, width=10_000)` writes for this shape (tests/test_monitoring.py compares
them); each distinct scalar is spelled once by PyYAML itself, so quoting follows PyYAML's YAML 1.1 rules, which
are also Prometheus's (go-yaml v2): `'on'`, `'true'` and `'3'` stay strings."""

from __future__ import annotations

from functools import lru_cache

import yaml


@lru_cache(maxsize=1 << 16)
def _scalar(value: str) -> str:
    """`value` as PyYAML writes it in a block mapping (plain, or quoted where YAML 1.1 would read it otherwise)."""
    text = yaml.safe_dump({"k": value}, width=10_000, allow_unicode=False)
    if "\n" in text[:-1]:  # a value PyYAML folds over lines: never in labels (inventory strings have no newlines)
        raise ValueError(f"label value {value!r} does not fit on one line")
    return text[3:-1]


def dump_intent(doc: dict) -> str:
    """`groups:` of `{name, [interval], rules: [{record, expr, labels}]}` as block YAML."""
    out = ["groups:\n"]
    for group in doc["groups"]:
        out.append(f"- name: {_scalar(group['name'])}\n")
        if "interval" in group:
            out.append(f"  interval: {_scalar(group['interval'])}\n")
        out.append("  rules:\n")
        for rule in group["rules"]:
            out.append(f"  - record: {_scalar(rule['record'])}\n    expr: {_scalar(rule['expr'])}\n")
            labels = rule.get("labels")
            if labels:
                out.append("    labels:\n")
                out.extend(f"      {_scalar(k)}: {_scalar(v)}\n" for k, v in labels.items())
    return "".join(out)
