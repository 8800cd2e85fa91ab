"""`key = value` files: qos_features.conf, adaptive_routing.conf (Cumulus switchd syntax)."""

from __future__ import annotations


def parse_kv(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or "=" not in line:
            continue
        key, value = line.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def kv_list(value: str | None) -> list[str]:
    """`[0,3]` or `swp1,swp2` -> ["0", "3"] / ["swp1", "swp2"]."""
    if not value:
        return []
    return [v.strip() for v in value.strip().strip("[]").split(",") if v.strip()]


def kv_bool(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "1", "yes", "on")


MERGED_NOTE = "# keys set by netauto that the platform's file did not have"


def set_keys(text: str, values: dict[str, str]) -> str:
    """`text` (a switchd `key = value` file the platform owns, e.g. qos_infra.conf) with each key of `values` set:
    every line holding the key gets the value (its indentation kept), keys the file lacks are appended after a
    comment; every other line, comments and blank lines included, stays byte for byte."""
    lines = text.splitlines(keepends=True)
    seen: set[str] = set()
    out = []
    for raw in lines:
        body = raw.split("#", 1)[0]
        key = body.split("=", 1)[0].strip() if "=" in body else ""
        if key in values:
            seen.add(key)
            indent = raw[: len(raw) - len(raw.lstrip())]
            newline = "\n" if raw.endswith("\n") else ""
            out.append(f"{indent}{key} = {values[key]}{newline}")
        else:
            out.append(raw)
    missing = [k for k in values if k not in seen]
    if missing:
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.append(f"{MERGED_NOTE}\n")
        out += [f"{k} = {values[k]}\n" for k in missing]
    return "".join(out)
