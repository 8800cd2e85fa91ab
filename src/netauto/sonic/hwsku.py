"""SONiC HWSKU facts moved to the platform layer (`netauto.platforms.hardware`); this name stays for callers."""

from __future__ import annotations

from netauto.platforms.hardware import HWSKU_DIR, Cage, HwSku, PortInfo, hwsku_names, load_hwsku

Hwsku = HwSku
available = hwsku_names
load = load_hwsku

__all__ = ["HWSKU_DIR", "Cage", "Hwsku", "PortInfo", "available", "load"]
