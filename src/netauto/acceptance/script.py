"""The plan as a shell script (ssh) or a Slurm batch job, for sites that run tests through their own tools.

Same rounds and commands as `acceptance run`: listeners in the background, then the clients, `wait`, outputs in
$RESULTS/<id>.txt (perftest's JSON fetched to <id>.json). Every inventory value is shell-quoted.
"""

from __future__ import annotations

import shlex

from netauto.acceptance.commands import DIR_PATTERN, DIR_TEMPLATE, DIR_VAR
from netauto.acceptance.model import AccTest, Plan, safe_id
from netauto.acceptance.runner import _duration

Launch = str  # "ssh" | "slurm"


def _on(host: str, command_word: str, how: Launch) -> str:
    """Run the shell word `command_word` (already quoted) on `host` (an inventory name, or a shell word `"$1"`)."""
    where = host if host.startswith('"') else shlex.quote(host)
    if how == "slurm":  # one job step on that node; --overlap: steps share the allocation's nodes
        return f"srun --nodes=1 --ntasks=1 --overlap --nodelist={where} sh -c {command_word}"
    return f"ssh -n -o BatchMode=yes {where} {command_word}"


def _in_dir(var: str, command: str) -> str:
    """`command` as one shell word, run with $NETAUTO_ACC_DIR = the run's folder on that host (local `$var`,
    checked by `remote_dir`), umask 077 and noclobber."""
    return f'"{DIR_VAR}=${var}; export {DIR_VAR}; umask 077; set -C; "{shlex.quote(command)}'


def _dir_hosts(plan: Plan) -> dict[str, str]:
    """Client host -> the local variable holding its private folder (hosts whose tests write a file there)."""
    hosts = sorted({t.client for t in plan.tests() if "--out_json_file=" in t.command.get("client", "")})
    return {h: f"D_{i}" for i, h in enumerate(hosts)}


def _round_lines(tests: list[AccTest], how: Launch, dirs: dict[str, str]) -> list[str]:
    lines = []
    for t in tests:
        if t.server is not None and "server" in t.command:
            grace = _duration(t) + 60
            lines.append(f"{_on(t.server, shlex.quote(f'timeout {grace} ' + t.command['server']), how)} "
                         ">/dev/null 2>&1 &")
    if len(lines):
        lines.append("sleep 1")
    for t in tests:
        word = _in_dir(dirs[t.client], t.command["client"]) if t.client in dirs else shlex.quote(t.command["client"])
        lines.append(f"{_on(t.client, word, how)} >\"$RESULTS\"/{shlex.quote(t.id + '.txt')} 2>&1 &")
    lines.append("wait")
    for t in tests:
        if "--out_json_file=" in t.command.get("client", ""):
            word = f'"cat -- ${dirs[t.client]}/"{shlex.quote(t.id + ".json")}'
            lines.append(f"{_on(t.client, word, how)} >\"$RESULTS\"/{shlex.quote(t.id + '.json')} 2>/dev/null")
    return lines


def _private_dirs(dirs: dict[str, str], how: Launch) -> list[str]:
    """Each host's private folder for this run (`mktemp -d` there, its name checked here), removed at the end."""
    if not dirs:
        return []
    make = shlex.quote(f"umask 077; mktemp -d {DIR_TEMPLATE}")
    lines = ["remote_dir() {  # this run's private folder on host $1, or a failure",
             "  local d",
             f"  d=$({_on(chr(34) + '$1' + chr(34), make, how)}) || return 1",
             f"  case $d in {DIR_PATTERN}) printf '%s\\n' \"$d\" ;; *) return 1 ;; esac",
             "}"]
    for host, var in dirs.items():
        lines.append(f"{var}=$(remote_dir {shlex.quote(host)}) || {{ echo {shlex.quote(f'netauto: no private folder on {host}')} >&2; exit 1; }}")
    removes = "; ".join(f"{_on(host, chr(34) + f'rm -rf -- ${var}' + chr(34), how)}" for host, var in dirs.items())
    lines.append(f"trap {shlex.quote(removes)} EXIT")
    return lines


def emit(plan: Plan, how: Launch, inventory: str = "inventory") -> str:
    hosts = sorted({h for t in plan.tests() for h in (t.client, t.server, *t.hosts) if h})
    # SC2016: the commands' "$NETAUTO_ACC_DIR" is single-quoted on purpose (it expands on the server)
    head = ["#!/bin/bash", "# shellcheck disable=SC2016"]
    if how == "slurm":
        head += [f"#SBATCH --job-name=netauto-acceptance-{safe_id(plan.fabric)}"[:200], f"#SBATCH --nodes={len(hosts)}",
                 "#SBATCH --ntasks-per-node=1", "#SBATCH --exclusive",
                 f"#SBATCH --nodelist={','.join(hosts)}"]
    head += [f"# netauto acceptance: {len(plan.rounds)} round(s) of fabric {safe_id(plan.fabric)}; then",
             "#   netauto acceptance report -i INVENTORY \"$RESULTS\"",
             "# RESULTS: $1, a new folder (an existing one is refused: no result of another run is read), default",
             "# a new ./netauto-acceptance.XXXXXXXX; every redirect refuses to overwrite a file (set -C)",
             "set -u", "umask 077",
             'if [ $# -gt 0 ]; then RESULTS=$1; mkdir -m 700 -- "$RESULTS" || exit 1',
             'else RESULTS=$(mktemp -d ./netauto-acceptance.XXXXXXXX) || exit 1; fi',
             'echo "netauto acceptance: results in $RESULTS" >&2', "set -C"]
    dirs = _dir_hosts(plan)
    body = _private_dirs(dirs, how)
    inv = shlex.quote(inventory)
    for rnd in plan.rounds:
        body.append(f"\n# round {rnd.number}: {len(rnd.tests)} test(s)")
        for spine in rnd.drain:
            body.append(f"netauto drain {shlex.quote(spine)} -i {inv}")
        body += _round_lines(rnd.tests, how, dirs)
        for spine in rnd.drain:
            body.append(f"netauto undrain {shlex.quote(spine)} -i {inv}")
    return "\n".join(head + body) + "\n"
