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
