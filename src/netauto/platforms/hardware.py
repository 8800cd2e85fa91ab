"""Switch hardware and SONiC HWSKU facts: cages, lanes, lane rates, breakout modes, port maps, buffer tables.

The facts are data files under `data/hardware/<model>.yaml` and `data/sonic_hwsku/<HWSKU>.yaml`, each citing
its public source. Everything that needs a lane number, a breakout mode or a lossless buffer profile asks here.

A port is one logical interface on a cage: a whole cage (breakout 1) or one of `breakout` equal slices of its
lanes. Its lane rate is speed / lanes; the platform's native lane rate (100G on Spectrum-4) decides how a
speed is broken out: 400G on an 8-lane 800G cage is a 2x breakout of 4 x 100G lanes, the shape of a
ConnectX-7 400G port.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from netauto.platforms.datafile import load_yaml

from netauto.errors import NetautoError

DATA = Path(__file__).resolve().parent / "data"
HARDWARE_DIR = DATA / "hardware"
HWSKU_DIR = DATA / "sonic_hwsku"


@dataclass(frozen=True, slots=True)
class Cage:
    number: int
    lanes: tuple[int, ...]
    alias: str
    modes: dict[int, tuple[int, ...]]  # ports per cage -> speeds in Mb/s (first = native)
    sonic_base: int  # N of the cage's platform.json key Ethernet<N> (not always its first lane: SN4600C)

    @property
    def max_speed_mbps(self) -> int:
        return self.modes[1][0]


@dataclass(frozen=True, slots=True)
class PortInfo:
    lanes: str  # "0,1,2,3"
    alias: str
    index: int  # front-panel cage number


@dataclass(frozen=True, slots=True)
class Hardware:
    model: str
    asic: str
    sonic_platform: str
    lane_speed_mbps: int
    cages: dict[int, Cage]
    default_sku: str  # the SONiC platform's default HWSKU (device/<vendor>/<platform>/default_sku)

    def cage(self, number: int, *, where: str) -> Cage:
        found = self.cages.get(number)
        if found is None:
            raise NetautoError(f"{where}: the {self.model} has no front-panel cage {number} "
                               f"(cages 1-{max(self.cages)})")
        return found

    def breakout_for(self, cage: int, speed_mbps: int, lane_speed_mbps: int | None = None, *, where: str) -> int:
        """How many ports a cage is split into so that one port runs `speed_mbps` on lanes of `lane_speed_mbps`
        (default: the platform's native lane rate)."""
        c = self.cage(cage, where=where)
        rate = lane_speed_mbps or self.lane_speed_mbps
        lanes = speed_mbps // rate if speed_mbps % rate == 0 else 0
        if lanes < 1 or len(c.lanes) % lanes:
            raise NetautoError(f"{where}: {speed_mbps // 1000}G cannot run on {rate // 1000}G lanes of a "
                               f"{len(c.lanes)}-lane {self.model} cage")
        ways = len(c.lanes) // lanes
        if ways not in c.modes or speed_mbps not in c.modes[ways]:
            modes = ", ".join(f"{w}x{c.modes[w][0] // 1000}G" for w in sorted(c.modes))
            raise NetautoError(f"{where}: {speed_mbps // 1000}G on {lanes} lane(s) of {rate // 1000}G needs a "
                               f"{ways}x breakout, which a {self.model} cage {cage} does not support ({modes})")
        return ways

    def port(self, cage: int, subport: int | None, breakout: int, speed_mbps: int, *, where: str) -> PortInfo:
        """Lanes and SONiC alias of one logical port: a whole cage, or sub-port `subport` of a `breakout`-way split."""
        c = self.cage(cage, where=where)
        if breakout not in c.modes:
            raise NetautoError(f"{where}: a {self.model} cage {cage} ({len(c.lanes)} lanes) cannot be split "
                               f"{breakout} ways (supported: {sorted(c.modes)})")
        if speed_mbps not in c.modes[breakout]:
            raise NetautoError(f"{where}: {speed_mbps // 1000}G x {breakout} exceeds or does not fit cage {cage} of "
                               f"the {self.model} (a {breakout}x port runs "
                               f"{', '.join(str(s // 1000) + 'G' for s in c.modes[breakout])})")
        if breakout == 1:
            return PortInfo(",".join(map(str, c.lanes)), c.alias, cage)
        width = len(c.lanes) // breakout
        sub = subport or 0
        lanes = c.lanes[sub * width : (sub + 1) * width]
        return PortInfo(",".join(map(str, lanes)), f"{c.alias}{string.ascii_lowercase[sub]}", cage)

    def lanes(self, cage: int, subport: int | None, breakout: int) -> list[int]:
        c = self.cages[cage]
        if breakout == 1:
            return list(c.lanes)
        width = len(c.lanes) // breakout
        return list(c.lanes[(subport or 0) * width : ((subport or 0) + 1) * width])

    def sonic_name(self, cage: int, subport: int | None, breakout: int) -> str:
        """SONiC name of one logical port: Ethernet<cage base + first lane offset of the sub-port in the cage>,
        as sonic-config-engine portconfig.py (BreakoutCfg.get_config) names the children of a platform.json port:
        SN5600 cage 2 at 2x400G -> Ethernet8, Ethernet12; SN4600C cage 2 (lanes 8-11) at 2x50G -> Ethernet4,
        Ethernet6 (Mellanox-SN4600C-D48C40/port_config.ini); SN3420 cage 49 at 4x25G -> Ethernet192..195."""
        c = self.cages[cage]
        width = len(c.lanes) // breakout
        return f"Ethernet{c.sonic_base + (subport or 0) * width}"

    def breakout_mode_name(self, cage: int, breakout: int) -> str:
        """SONiC platform.json spelling of a cage's breakout mode, e.g. "2x400G[200G,100G,50G,40G,25G,10G]"."""
        speeds = [s // 1000 for s in self.cages[cage].modes[breakout]]
        alt = ",".join(f"{s}G" for s in speeds[1:])
        return f"{breakout}x{speeds[0]}G" + (f"[{alt}]" if alt else "")


# Light in silica fibre (group index ~1.47) travels ~4.9 ns per metre; rounded up to 5 ns/m ("fibre is ~5 us/km":
# domain.md Corrections "PFC headroom and distance": 10 km at 400 Gb/s is ~5 MB per lossless priority group).
FIBRE_NS_PER_M = 5


def in_flight_bytes(speed_mbps: int, metres: int) -> int:
    """Bytes a port receives during the round trip of `metres` of fibre at line rate (PFC XOFF to last byte)."""
    return -(-2 * metres * FIBRE_NS_PER_M * speed_mbps // 8000)


@dataclass(frozen=True, slots=True)
class PgProfile:
    """One row of a SKU's pg_profile_lookup.ini: lossless PG headroom for a port speed and cable length."""

    speed_mbps: int
    cable_m: int
    size: int
    xon: int
    xoff: int
    threshold: int

    @property
    def name(self) -> str:  # buffermgrd's name for it
        return f"pg_lossless_{self.speed_mbps}_{self.cable_m}m_profile"


@dataclass(frozen=True, slots=True)
class BufferDefaults:
    """One buffers_defaults_<topology>.j2 of a SKU: its default cable length and buffer pools."""

    default_cable_m: int
    pools: dict[str, dict[str, object]]


@dataclass(frozen=True, slots=True)
class HwSku:
    name: str
    hardware: Hardware
    default_breakout: int
    buffer_defaults: dict[str, BufferDefaults]  # buffers_defaults_<topology>.j2 the SKU has: t0, t1, ...
    pg_profiles: dict[int, dict[int, PgProfile]] = field(default_factory=dict)  # speed -> cable m -> row

    # the pre-platform-layer API (netauto.sonic.hwsku), kept for callers
    @property
    def platform(self) -> str:
        return self.hardware.sonic_platform

    @property
    def asic(self) -> str:
        return self.hardware.asic

    @property
    def cages(self) -> dict[int, Cage]:
        return self.hardware.cages

    def buffers(self, topology: str, *, where: str) -> BufferDefaults:
        """The buffer defaults SONiC's buffers template imports for a topology (t0, t1, ...); an error naming the
        ones the SKU has when it lacks this one (SONiC's `config qos reload` fails the same way)."""
        if topology not in self.buffer_defaults:
            raise NetautoError(f"{where}: HWSKU {self.name} has no buffers_defaults_{topology}.j2 (it has "
                               f"{', '.join(sorted(self.buffer_defaults))}): SONiC's buffers template cannot render")
        return self.buffer_defaults[topology]

    def port(self, cage: int, subport: int | None, breakout: int, speed_mbps: int, *, device: str, name: str) -> PortInfo:
        return self.hardware.port(cage, subport, breakout, speed_mbps, where=f"{device} {name}")

    def default_breakout_of(self, cage: int) -> int:
        """The SKU's factory breakout of one cage (hwsku.json `default_brkout_mode`): `default_breakout` where the
        cage supports it, else whole (the SN5600's one-lane SFP28 cage 65 is 1x25G in every SKU)."""
        return self.default_breakout if self.default_breakout in self.hardware.cages[cage].modes else 1

    def breakout_modes(self, used: dict[int, int]) -> dict[str, str]:
        """BREAKOUT_CFG as SONiC keeps it: one row per cage of the SKU (sonic-config-engine portconfig.py
        parse_breakout_mode: every hwsku.json interface), keyed by the cage's platform.json port, the mode
        `used[cage]` ways for the cages the fabric uses and the SKU's default for the others."""
        hw = self.hardware
        return {hw.sonic_name(c, None, 1): hw.breakout_mode_name(c, used.get(c, self.default_breakout_of(c)))
                for c in sorted(hw.cages)}

    def cable_lengths(self, speed_mbps: int) -> list[int]:
        return sorted(self.pg_profiles.get(speed_mbps, {}))

    def headroom_bytes(self, speed_mbps: int, cable_m: int) -> int:
        """Lossless headroom of one priority group of a port: the size of the table row the port's cable rounds
        up to; beyond the table, the longest row plus the bytes in flight over the extra fibre for a round trip
        (2 x FIBRE_NS_PER_M x metres x line rate). The table's rows include the ASIC's own terms (response
        time, MTU, cell overhead); the extrapolation adds only the propagation physics, so it is a floor."""
        row = self.lossless_profile(speed_mbps, cable_m)
        if row is not None:
            return row.size
        lengths = self.cable_lengths(speed_mbps)
        if not lengths:
            raise NetautoError(f"HWSKU {self.name} has no lossless headroom row for {speed_mbps // 1000}G")
        last = self.pg_profiles[speed_mbps][lengths[-1]]
        return last.size + in_flight_bytes(speed_mbps, cable_m - lengths[-1])

    def headroom_budget(self, topology: str = "t1") -> int:
        """What the lossless PGs' headroom may take of the ASIC's buffer: the whole shared buffer (the egress
        lossless pool spans it in the Mellanox buffers_defaults_t*.j2) less the ingress lossy pool, which lossy
        traffic keeps, in the buffer defaults of `topology` (a SONiC switch's type's; T1 for Cumulus: the
        smaller T1 lossy pool, as before SONiC types were per tier). An upper bound: the shared lossless pool
        shrinks by what headroom takes."""
        pools = self.buffers(topology, where=self.name).pools
        return int(str(pools["egress_lossless_pool"]["size"])) - int(str(pools["ingress_lossy_pool"]["size"]))

    def lossless_profile(self, speed_mbps: int, cable_m: int) -> PgProfile | None:
        """The headroom row for a port: the table's shortest cable length >= the real one (headroom for a
        longer cable is safe, for a shorter one it drops). None when the cable is longer than the table."""
        for length in self.cable_lengths(speed_mbps):
            if length >= cable_m:
                return self.pg_profiles[speed_mbps][length]
        return None


def hardware_models() -> list[str]:
    return sorted(p.stem for p in HARDWARE_DIR.glob("*.yaml"))


def hwsku_names() -> list[str]:
    return sorted(p.stem for p in HWSKU_DIR.glob("*.yaml"))


def _read(path: Path) -> dict:
    return load_yaml(path)


@cache
def load_hardware(model: str) -> Hardware:
    path = HARDWARE_DIR / f"{model}.yaml"
    if not path.is_file():
        raise NetautoError(f"unknown switch hardware {model!r} (known: {', '.join(hardware_models())}); "
                           f"add {path}")
    data = _read(path)
    modes_by_width = {int(w): {int(k): tuple(int(s) * 1000 for s in v) for k, v in m.items()}
                      for w, m in data["breakout_modes"].items()}
    cages: dict[int, Cage] = {}
    for group in data["cage_groups"]:
        width = int(group["lanes"])
        stride = int(group.get("lane_stride", width))  # lane numbers between two cages (SN4600C: 8 for 4 lanes)
        # Ethernet<N> of the first cage and the step in N between cages; default: N is the first lane
        name_first = int(group.get("first_name", group["first_lane"]))
        name_stride = int(group.get("name_stride", stride))
        for n in range(int(group["first"]), int(group["last"]) + 1):
            k = n - int(group["first"])
            first = int(group["first_lane"]) + k * stride
            cages[n] = Cage(n, tuple(range(first, first + width)), f"{data['alias_prefix']}{n}", modes_by_width[width],
                            sonic_base=name_first + k * name_stride)
    return Hardware(model=str(data["model"]), asic=str(data["asic"]), sonic_platform=str(data["sonic_platform"]),
                    lane_speed_mbps=int(data["lane_speed_gbps"]) * 1000, cages=cages,
                    default_sku=str(data["default_sku"]))


@cache
def load_hwsku(name: str) -> HwSku:
    path = HWSKU_DIR / f"{name}.yaml"
    if not path.is_file():
        raise NetautoError(f"unknown SONiC HWSKU {name!r} (known: {', '.join(hwsku_names())}); add {path}")
    data = _read(path)
    buffers = _read(HWSKU_DIR / f"{data['same_buffers_as']}.yaml") if "same_buffers_as" in data else data
    profiles = {
        int(speed): {int(cable): PgProfile(int(speed), int(cable), *(int(v) for v in row)) for cable, row in rows.items()}
        for speed, rows in buffers["pg_profile_lookup"].items()
    }
    return HwSku(name=str(data["hwsku"]), hardware=load_hardware(str(data["hardware"])),
                 default_breakout=int(data["default_breakout"]),
                 buffer_defaults={str(topo): BufferDefaults(int(spec["default_cable_m"]),
                                                            {k: dict(v) for k, v in spec["pools"].items()})
                                  for topo, spec in buffers["buffer_defaults"].items()},
                 pg_profiles=profiles)
