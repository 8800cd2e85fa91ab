"""The exact command lines of each test side: perftest `ib_write_bw`, iperf3 (the lab) and nccl-tests.

Every value that comes from the inventory (device names, addresses, host names) is shell-quoted: the command is
run by `sh -c` on the server and written into the emitted script.

perftest flags, checked against perftest 4.5-0.17 `ib_write_bw --help` (Debian 12) and linux-rdma/perftest
src/perftest_parameters.c: `-d` RDMA device, `-i` port of the device, `-R` connect with rdma_cm (the GID
follows the address; `--source_ip` the client's), `-T/--tos` the ToS of rdma_cm QPs, or `-x` GID index (RoCE:
the RoCEv2 IPv4 GID; `show_gids` lists it, often but not always 3) with `--tclass` the GRH traffic class
(IPv4: the TOS byte), both the value NCCL_IB_TC carries (DSCP << 2 | ECT(0)), `-q` QPs,
`-F` no cpufreq warning, `-D` seconds, `-p` TCP port of the exchange, `--report_gbits` Gb/s, `--out_json` /
`--out_json_file` the JSON report.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from netauto.acceptance.model import End

PERFTEST_PORT = 18515  # perftest's default `-p`; + the server NIC's rail: one listener per NIC and host
IPERF3_PORT = 5201  # iperf3's default `-p`
# The run's private folder on a server: made by `mktemp -d` (0700, a fresh unguessable name, never an existing
# path or link) for each run, named to the commands by $NETAUTO_ACC_DIR, removed after the run. A fixed /tmp
# path would let any local user plant a link (root overwrites a file through it) or a passing result.
DIR_VAR = "NETAUTO_ACC_DIR"
DIR_TEMPLATE = "/tmp/netauto-acceptance.XXXXXXXXXX"
DIR_PATTERN = "/tmp/netauto-acceptance." + "[A-Za-z0-9]" * 10  # a shell `case` pattern of what mktemp made
# shell: make the folder and export it (exit 1 when it cannot be made), umask 077, no redirect overwrites a file
MAKE_DIR = f"umask 077; set -C; {DIR_VAR}=$(mktemp -d {DIR_TEMPLATE}) || exit 1; export {DIR_VAR}"


@dataclass(frozen=True, slots=True)
class BwOptions:
    gid_index: int | None = None  # None: rdma_cm (`-R`) picks the NIC's RoCEv2 IPv4 GID from its address
    tclass: int | None = None  # None: the servers' host_tos = NCCL_IB_TC (the planner fills it in)
    qps: int = 4
    duration: int = 10
    ib_port: int = 1


@dataclass(frozen=True, slots=True)
class Iperf3Options:
    rate: str = "200M"  # iperf3 -b: the paced rate the lab holds against (veths have no line rate)
    duration: int = 2


def q(text: str | int) -> str:
    return shlex.quote(str(text))


def perftest(test_id: str, client: End, server: End, o: BwOptions) -> dict[str, str]:
    port = PERFTEST_PORT + server.rail

    # rdma_cm resolves the GID from the address (as NCCL's NCCL_IB_ADDR_FAMILY does: no GID index that differs
    # between hosts) and sets the ToS of its QPs with -T; a given GID index sets the GRH traffic class instead
    cm = f"-x {o.gid_index} --tclass={o.tclass}" if o.gid_index is not None else f"-R --tos={o.tclass}"

    def common(end: End) -> str:
        return (f"ib_write_bw -d {q(end.rdma)} -i {o.ib_port} {cm} -q {o.qps} -F "
                f"-D {o.duration} -p {port} --report_gbits")

    source = f" --source_ip={q(client.ip)}" if o.gid_index is None else ""
    return {"server": common(server),
            "client": f"{common(client)}{source} --out_json --out_json_file=\"${DIR_VAR}\"/{q(f'{test_id}.json')} "
                      f"{q(server.ip)}"}


def iperf3(client: End, server: End, o: Iperf3Options) -> dict[str, str]:
    port = IPERF3_PORT + server.rail
    return {"server": f"iperf3 -s -1 -B {q(server.ip)} -p {port}",
            "client": f"iperf3 -c {q(server.ip)} -B {q(client.ip)} -p {port} -t {o.duration} -b {q(o.rate)} -J"}


def nccl(kind: str, slots: list[tuple[str, int]]) -> dict[str, str]:
    """mpirun from the first host, one rank per GPU of each host (`slots`: host, its GPUs); NCCL reads the
    rendered /etc/nccl.conf (HCAs, TC, GID selection) on every host. nccl-tests options (README): -b/-e min/max
    bytes, -f step factor, -g GPUs per process (one process per GPU). Open MPI: `-H host:slots`; hosts alike map
    `ppr:<n>:node`, mixed ones fill each host's slots (`--map-by slot`). NCCL_DEBUG=INFO with the INIT and NET
    subsystems logs the NICs it uses and whether GPUDirect RDMA carries each channel (formats.nccl_log)."""
    hostlist = ",".join(f"{h}:{n}" for h, n in slots)
    per_host = {n for _, n in slots}
    mapping = f"ppr:{per_host.pop()}:node" if len(per_host) == 1 else "slot"
    return {"client": f"mpirun -np {sum(n for _, n in slots)} -H {q(hostlist)} --map-by {mapping} --bind-to numa "
                      f"-x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET {kind} -b 1G -e 16G -f 2 -g 1"}
