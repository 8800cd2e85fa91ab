"""The plan as a shell script (ssh) or a Slurm batch job, for sites that run tests through their own tools.

Same rounds and commands as `acceptance run`: listeners in the background, then the clients, `wait`, outputs in
$RESULTS/<id>.txt (perftest's JSON fetched to <id>.json). Every inventory value is shell-quoted.
"""

from __future__ import annotations

import shlex

from netauto.acceptance.commands import REMOTE_DIR
from netauto.acceptance.model import AccTest, Plan, safe_id
from netauto.acceptance.runner import _duration

Launch = str  # "ssh" | "slurm"


def _on(host: str, command: str, how: Launch) -> str:
    if how == "slurm":  # one job step on that node; --overlap: steps share the allocation's nodes
        return f"srun --nodes=1 --ntasks=1 --overlap --nodelist={shlex.quote(host)} sh -c {shlex.quote(command)}"
    return f"ssh -n -o BatchMode=yes {shlex.quote(host)} {shlex.quote(command)}"


def _round_lines(tests: list[AccTest], how: Launch) -> list[str]:
    lines = []
    for t in tests:
        if t.server is not None and "server" in t.command:
            grace = _duration(t) + 60
            lines.append(f"{_on(t.server, f'timeout {grace} ' + t.command['server'], how)} >/dev/null 2>&1 &")
    if len(lines):
        lines.append("sleep 1")
    for t in tests:
        prep = f"umask 077; mkdir -p {REMOTE_DIR}; "
        lines.append(f"{_on(t.client, prep + t.command['client'], how)} >\"$RESULTS\"/{shlex.quote(t.id + '.txt')} 2>&1 &")
    lines.append("wait")
    for t in tests:
        if "--out_json_file=" in t.command.get("client", ""):
            remote = f"{REMOTE_DIR}/{t.id}.json"
            lines.append(f"{_on(t.client, f'cat {shlex.quote(remote)}; rm -f {shlex.quote(remote)}', how)} "
                         f">\"$RESULTS\"/{shlex.quote(t.id + '.json')} 2>/dev/null")
    return lines


def emit(plan: Plan, how: Launch, inventory: str = "inventory") -> str:
    hosts = sorted({h for t in plan.tests() for h in (t.client, t.server, *t.hosts) if h})
    head = ["#!/bin/bash"]
    if how == "slurm":
        head += [f"#SBATCH --job-name=netauto-acceptance-{safe_id(plan.fabric)}"[:200], f"#SBATCH --nodes={len(hosts)}",
                 "#SBATCH --ntasks-per-node=1", "#SBATCH --exclusive",
                 f"#SBATCH --nodelist={','.join(hosts)}"]
    head += [f"# netauto acceptance: {len(plan.rounds)} round(s) of fabric {safe_id(plan.fabric)}; then",
             "#   netauto acceptance report -i INVENTORY \"$RESULTS\"",
             "set -u", 'RESULTS="${1:-RESULTS}"', 'umask 077', 'mkdir -p "$RESULTS"']
    body = []
    inv = shlex.quote(inventory)
    for rnd in plan.rounds:
        body.append(f"\n# round {rnd.number}: {len(rnd.tests)} test(s)")
        for spine in rnd.drain:
            body.append(f"netauto drain {shlex.quote(spine)} -i {inv}")
        body += _round_lines(rnd.tests, how)
        for spine in rnd.drain:
            body.append(f"netauto undrain {shlex.quote(spine)} -i {inv}")
    return "\n".join(head + body) + "\n"
