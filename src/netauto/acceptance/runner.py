"""`netauto acceptance run`: the plan's rounds one after another over SSH (Nornir, one task per server and
round), each test's output saved as RESULTS/<id>.txt (and perftest's --out_json file as RESULTS/<id>.json).

A round: (1) the drained spines of a pinned round get BGP graceful shutdown (netauto's verified maintenance
drain), restored when the next round needs other spines drained or none (and after the run, even on failure); (2) every server starts its listening sides in the background (setsid, each
bounded by `timeout`); (3) every server runs its client sides at once and waits for them; (4) each host's
outputs are read back from that run's private folder (`mktemp -d`, `commands.MAKE_DIR`; every redirect with
noclobber) and the folder is removed when the script ends. Nothing is written to a server but that folder: the
listeners' output is not kept.
"""

from __future__ import annotations

import shlex
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from netauto.acceptance.commands import DIR_VAR, MAKE_DIR
from netauto.acceptance.model import AccTest, Plan, Round
from netauto.acceptance.store import results_dir, write_private
from netauto.deploy.targets import Credentials, Target

Log = Callable[[str], None]
_SEP = "\n--netauto-acceptance-end-{token}--\n"  # per script: a test's output cannot end its block or start another


def _sep(token: str) -> str:
    return _SEP.format(token=token)


@dataclass(slots=True)
class RunResult:
    saved: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "<host>: why" (a test without output is reported later)


def _servers_script(tests: list[AccTest], grace: int) -> str:
    lines = [f"setsid timeout {grace} sh -c {shlex.quote(t.command['server'])} </dev/null >/dev/null 2>&1 &"
             for t in tests]
    return "\n".join(lines) + "\n"


def _clients_script(tests: list[AccTest], grace: int, token: str) -> str:
    """The clients of one host, their outputs in this run's private folder, then read back from there only, each
    ended by the separator of this script's random `token` (a test printing the separator and `<other test>.json`
    would otherwise put a result in the place of one that wrote none)."""
    lines = [MAKE_DIR, f"trap 'rm -rf -- \"${DIR_VAR}\"' EXIT"]
    for t in tests:
        out = f'"${DIR_VAR}"/{shlex.quote(f"{t.id}.txt")}'
        lines.append(f"timeout {grace} sh -c {shlex.quote(t.command['client'])} </dev/null >{out} 2>&1 &")
    lines.append("wait")
    for t in tests:
        for suffix in ("txt", "json"):
            f = f'"${DIR_VAR}"/{shlex.quote(f"{t.id}.{suffix}")}'
            lines.append(f"printf '%s\\n' {shlex.quote(f'{t.id}.{suffix}')}; cat {f} 2>/dev/null; printf {shlex.quote(_sep(token))}")
    return "\n".join(lines) + "\n"


def _split(stdout: str, token: str) -> dict[str, str]:
    """`name\\n<content>SEP` blocks -> name -> content (empty files dropped)."""
    out = {}
    for block in stdout.split(_sep(token)):
        name, _, body = block.lstrip("\n").partition("\n")
        if name and body.strip():
            out[name.strip()] = body
    return out


def _host_task(task: Any, scripts: dict[str, str], timeout: float) -> Any:
    from nornir.core.task import Result  # lazy: +87 modules (nornir) at import otherwise; only this function needs them

    from netauto.deploy.connection import CONNECTION_NAME  # lazy: +546 modules (netmiko, paramiko, ttp) at import otherwise; only this function needs them

    session = task.host.get_connection(CONNECTION_NAME, task.nornir.config)
    res = session.run(scripts[task.host.name], timeout=timeout)
    return Result(host=task.host, result=(res.rc, res.stdout, res.stderr))


def _on_hosts(targets: dict[str, Target], creds: Credentials, scripts: dict[str, str], timeout: float,
              workers: int) -> dict[str, tuple[int, str, str] | str]:
    from netauto.deploy.run import _nornir  # lazy: +762 modules (pydantic, nornir, netmiko) at import otherwise; only this function needs them

    names = sorted(scripts)
    nr = _nornir({n: targets[n] for n in names}, creds, max(1, min(workers, len(names))))
    try:
        agg = nr.run(task=_host_task, scripts=scripts, timeout=timeout, on_failed=True)
    finally:
        nr.close_connections(on_good=True, on_failed=True)
    out: dict[str, tuple[int, str, str] | str] = {}
    for n in names:
        multi = agg[n]
        ok = multi and not multi.failed and isinstance(multi[0].result, tuple)
        out[n] = multi[0].result if ok else str(multi.exception if multi else "no result")
    return out


def run_round(rnd: Round, targets: dict[str, Target], creds: Credentials, folder: Path, *, workers: int = 64,
              settle: float = 1.0) -> RunResult:
    tests = [t for t in rnd.tests if t.client in targets and (t.server is None or t.server in targets)]
    res = RunResult(problems=[f"{t.id}: {t.client if t.client not in targets else t.server} is not a server of "
                              "this inventory" for t in rnd.tests if t not in tests])
    grace = max(_duration(t) for t in tests) + 60 if tests else 60
    listen: dict[str, list[AccTest]] = {}
    clients: dict[str, list[AccTest]] = {}
    for t in tests:
        if t.server is not None and "server" in t.command:
            listen.setdefault(t.server, []).append(t)
        clients.setdefault(t.client, []).append(t)
    if listen:
        got = _on_hosts(targets, creds, {h: _servers_script(ts, grace) for h, ts in listen.items()}, 60, workers)
        res.problems += [f"{h}: {r}" for h, r in got.items() if isinstance(r, str)]
        time.sleep(settle)  # the listeners bind before a client connects
    token = uuid.uuid4().hex[:12]
    got = _on_hosts(targets, creds, {h: _clients_script(ts, grace, token) for h, ts in clients.items()}, grace + 30,
                    workers)
    for host, r in got.items():
        if isinstance(r, str):
            res.problems.append(f"{host}: {r}")
            continue
        expected = {f"{t.id}.{suffix}" for t in clients[host] for suffix in ("txt", "json")}
        for name, body in _split(r[1], token).items():
            if name not in expected:  # the server's output names the file: only this host's own tests' names
                res.problems.append(f"{host}: unexpected output block {name[:60]!r} ignored")
                continue
            write_private(folder / name, body)
            res.saved.append(name)
    return res


def _duration(t: AccTest) -> int:
    words = t.command.get("client", "").split()
    for flag in ("-D", "-t"):
        if flag in words:
            try:
                return int(words[words.index(flag) + 1])
            except (IndexError, ValueError):
                pass
    return 600  # NCCL: a sweep of sizes


def run(plan: Plan, targets: dict[str, Target], creds: Credentials, folder: Path, *, workers: int = 64,
        drain: Callable[[list[str], bool], None] | None = None, log: Log = lambda s: None) -> RunResult:
    results_dir(folder)
    write_private(folder / "plan.json", plan.to_json())
    total = RunResult()
    drained: list[str] = []  # consecutive rounds through the same spine keep the others drained
    try:
        for rnd in plan.rounds:
            if rnd.drain and drain is None:
                total.problems.append(f"round {rnd.number}: needs spines drained ({', '.join(rnd.drain)}); skipped")
                continue
            t0 = time.monotonic()
            if drain and rnd.drain != drained:
                if drained:
                    drain(drained, True)
                drained = []
                if rnd.drain:
                    drain(rnd.drain, False)
                    drained = list(rnd.drain)
            got = run_round(rnd, targets, creds, folder, workers=workers)
            total.saved += got.saved
            total.problems += got.problems
            log(f"round {rnd.number}: {len(rnd.tests)} test(s), {len(got.saved)} file(s) in "
                f"{time.monotonic() - t0:.1f} s")
    finally:
        if drain and drained:
            drain(drained, True)
    return total
