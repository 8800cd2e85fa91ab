"""GPU-server files: the RoCE QoS script, the NIC firmware script, nccl.conf, systemd units, udev rules
(netplan and sysctl.d have modules of their own)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netauto.formats.kv import parse_kv


@dataclass(slots=True)
class ScriptRail:
    index: int
    name: str
    rdma: str
    pci: str | None
    mac: str | None
    cable_length_m: int | None = None  # the sixth column (metres: mlnx_qos --cable_len); None in older scripts


@dataclass(slots=True)
class HostQos:
    trust: str | None
    pfc_bitmap: list[int] | None  # PFC=0,0,0,1,0,0,0,0 (mlnx_qos --pfc form)
    roce_tos: int | None
    ecn_priorities: list[int]
    cnp_dscp: int | None = None  # what the script writes to ecn/roce_np/cnp_dscp (and checks in firmware)
    cnp_priority: int | None = None
    rails: list[ScriptRail] = field(default_factory=list)
    reads_back: bool = False  # every value written is read back and compared

    @property
    def pfc_priorities(self) -> list[int]:
        return [i for i, bit in enumerate(self.pfc_bitmap or []) if bit]


_ASSIGN = re.compile(r"^([A-Z_]+)='?([^'\n]*)'?$", re.M)


def _int_or_none(v: str | None) -> int | None:
    return int(v) if v is not None and v.strip().isdigit() else None


def parse_roce_script(text: str) -> HostQos:
    """The netauto RoCE QoS script: its settings (shell variables), the rails it covers and what it writes."""
    var = {m.group(1): m.group(2) for m in _ASSIGN.finditer(text)}
    trust = re.search(r"--trust[= ](\w+)", text)
    pfc = var.get("PFC") or (m.group(1) if (m := re.search(r"--pfc[= ]([0-9,]+)", text)) else None)
    tos = var.get("TOS") or (m.group(1) if (m := re.search(r"echo (\d+) > \S*default_roce_tos", text)) else None)
    prio = var.get("PRIO")
    ecn = sorted({int(p) for p in re.findall(r"ecn/roce_(?:np|rp)/enable/(\d+)", text)})
    if prio is not None and prio.isdigit() and re.search(r"roce_np/enable/\$PRIO", text) and re.search(
            r"roce_rp/enable/\$PRIO", text):
        ecn = sorted(set(ecn) | {int(prio)})
    rails = []
    block = re.search(r"^RAILS='\n(.*?)^'", text, re.M | re.S)
    for line in (block.group(1).splitlines() if block else []):
        parts = line.split()
        if len(parts) in (5, 6) and parts[0].isdigit():
            rails.append(ScriptRail(int(parts[0]), parts[1], parts[2], None if parts[3] == "-" else parts[3],
                                    None if parts[4] == "-" else parts[4],
                                    int(parts[5]) if len(parts) == 6 and parts[5].isdigit() else None))
    cnp_set = re.search(r"roce_np/cnp_dscp\"? \"?\$CNP_DSCP", text) and re.search(r"roce_np/cnp_802p_prio\"? \"?\$CNP_PRIO", text)
    return HostQos(
        trust=trust.group(1) if trust else None,
        pfc_bitmap=[int(b) for b in pfc.split(",") if b] if pfc else None,
        roce_tos=_int_or_none(tos),
        ecn_priorities=ecn,
        cnp_dscp=_int_or_none(var.get("CNP_DSCP")) if cnp_set else None,
        cnp_priority=_int_or_none(var.get("CNP_PRIO")) if cnp_set else None,
        rails=rails,
        reads_back='got=$(sed' in text,
    )


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """A systemd unit or .link file (systemd.syntax(7)): section -> key -> values in order."""
    out: dict[str, dict[str, list[str]]] = {}
    section: dict[str, list[str]] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = out.setdefault(line[1:-1], {})
        elif "=" in line and section is not None:
            key, value = line.split("=", 1)
            section.setdefault(key.strip(), []).append(value.strip())
    return out


_UDEV_KEY = re.compile(r'([A-Z_]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"')


def parse_udev_rules(text: str) -> list[list[tuple[str, str, str]]]:
    """udev rules (udev(7)): one list of (key[{attr}], operator, value) per rule line."""
    rules = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        rules.append([(k + (f"{{{a}}}" if a else ""), op, v) for k, a, op, v in _UDEV_KEY.findall(line)])
    return rules


def parse_firmware_script(text: str) -> dict[str, dict[str, int]]:
    """netauto-nic-firmware.sh: NIC kind -> {mlxconfig parameter: value} from its `params` case arms."""
    out: dict[str, dict[str, int]] = {}
    start = text.find("params() {")
    block = text[start:text.find("\n}", start)] if start >= 0 else ""  # the other case functions hold no values
    for kind, body in re.findall(r'^\s*([a-z0-9-]+)\) echo "([^"]*)" ;;', block, re.M):
        out[kind] = {k: int(v) for k, v in (pv.split("=", 1) for pv in body.split()) if v.lstrip("-").isdigit()}
    return out


def parse_nccl(text: str) -> dict[str, str]:
    return parse_kv(text)
