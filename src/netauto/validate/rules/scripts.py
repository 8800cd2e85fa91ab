"""Server scripts run as root: every command they run is one a netauto template writes.

`sh -n` and shellcheck (validate's external checks) accept any well-formed command, so a line such as
`touch /tmp/PWNED #` added to netauto-roce-qos.sh (by hand in a --configs tree, or by inventory text that escaped
its quoting) passes them. HOST-08 lists the words at command positions (netauto.formats.shell) of every
netauto-*.sh and reports each that is not in KNOWN_COMMANDS: the commands, shell builtins and script functions
of templates/host/*.sh.j2 (tests/test_hostile_scripts.py checks the list against every shipped render).
"""

from __future__ import annotations

import functools

from netauto.formats.shell import command_heads
from netauto.platforms.host import FIRMWARE, ROCE_COUNTERS
from netauto.validate.rules import RuleOutput, rule
from netauto.validate.state import ParsedFabric

KNOWN_COMMANDS = frozenset({
    # programs (NIC tools: MLNX_OFED mlnx_qos / mlxconfig, iproute2 dcb, ipmitool; coreutils, sed, awk)
    "awk", "basename", "cat", "dcb", "dirname", "echo", "head", "ipmitool", "mkdir", "mlnx_qos", "mlxconfig",
    "modprobe", "mount", "printf", "rmdir", "sed", "sleep", "tail", "tr", "wc", "[", "test", "true", "false",
    # the RoCE counters script (textfile collector: ethtool -S, written to a temp file and moved into place)
    "chmod", "ethtool", "mktemp", "mv", "trap", "cd", "stat",
    # builtins
    ":", "command", "continue", "break", "exit", "read", "return", "set", "shift", "local", "wait",
    # functions the scripts define, and the tool paths they keep in variables
    "activation", "cold", "ecn_cnp", "fail", "find_netdev", "find_rdma", "log", "mlx_value", "ok", "params", "port_buffer",
    "put", "roce_tos",
    "trust_pfc", "wait_for", '"$@"', '"$MLXCONFIG"',
})


_MARK = "NETAUTODEVICENAME"


@functools.lru_cache(maxsize=64)
def _heads(text: str) -> tuple[tuple[int, str], ...]:
    return tuple(command_heads(text))


def unknown_commands(text: str, device: str) -> list[tuple[int, str]]:
    """(line, word) of the commands in `text` that no template writes. Servers' scripts differ only in the server's
    name, so the name is replaced by a placeholder before the (cached) parse: the 10k example parses a few scripts,
    not 2,048."""
    plain = text.replace(device, _MARK) if device and device not in KNOWN_COMMANDS else text
    return [(line, device if word == _MARK else word) for line, word in _heads(plain) if word not in KNOWN_COMMANDS]


@rule(id="HOST-08", severity="error", description="server scripts run only the commands netauto's templates write")
def script_commands(view: ParsedFabric) -> RuleOutput:
    paths = [view.host_files.qos_script, ROCE_COUNTERS] + ([FIRMWARE] if view.provisioning else [])
    for dev in view.servers:
        for path in paths:
            for line, word in unknown_commands(view.files.get(dev, path) or "", dev):
                shown = word if len(word) <= 40 else word[:37] + "..."
                yield dev, f"line {line} runs {shown!r}, which no netauto template writes (hand-edited or injected)", path
