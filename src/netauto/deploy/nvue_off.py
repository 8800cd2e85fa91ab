"""Linux-files mode on Cumulus: does NVUE still own the Linux files deploy pushes, and switching it off.

With NVUE in charge, its next `nv config apply` (or the boot-time apply of startup.yaml) regenerates
/etc/network/interfaces, /etc/frr/frr.conf and the switchd/QoS files and drops what deploy pushed. The
preflight reads, in the push's own SSH session and inside its device lock, what NVIDIA names as the opt-out
(platforms/data/nos_cumulus.yaml `linux-files.disable_nvue`): auto-save, startup.yaml, PASSWORD_NVUE_SYNC.
Every path, command and key comes from the platform layer. Tested against tests/nv_standin.py only, not NVUE.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from netauto.formats import device_json
from netauto.deploy import devstate, remote
from netauto.deploy.connection import DeviceSession, install_cmd
from netauto.deploy.remote import StepFailed
from netauto.platforms.nos import cumulus_auto_save_off, cumulus_disable_nvue

NO_NV = "__NETAUTO_NO_NV__"
BACKUP_ROOT = f"{devstate.ROOT}/nvue-off"  # startup.yaml moved aside here: <BACKUP_ROOT>/<run id>/...


def _spec() -> dict[str, object]:
    return cumulus_disable_nvue()


def startup_paths() -> list[str]:
    return ["/" + str(p) for p in _spec()["move_aside"]]  # type: ignore[attr-defined]


def env_path() -> str:
    return "/" + str(_spec()["env_file"])


def watched_paths() -> list[str]:
    """The files the preflight reads and --disable-nvue changes (backed up and restored by a rollback)."""
    return [*startup_paths(), env_path()]


@dataclass
class NvueOwner:
    """What the preflight found. `findings` empty: NVUE does not own the files (or is not there)."""

    nv: bool  # the `nv` command exists
    files: dict[str, bytes | None] = field(default_factory=dict)  # watched_paths() as read
    auto_save_key: str | None = None  # `enable` (<= 5.9) or `state` (>= 5.10), as the switch shows it
    auto_save_value: str | None = None
    findings: list[str] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return bool(self.findings)

    def summary(self) -> str:
        return "; ".join(self.findings)


def env_value(text: bytes | None, key: str) -> str | None:
    """The last `KEY=value` of a shell-style defaults file (quotes and `export` stripped), None if unset."""
    if text is None:
        return None
    value = None
    for line in text.decode(errors="replace").splitlines():
        m = re.match(rf"\s*(?:export\s+)?{re.escape(key)}=(.*)$", line)
        if m:
            raw = m.group(1).split(" #", 1)[0].strip()
            value = raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"" else raw
    return value


def with_env(text: bytes | None, env: dict[str, str]) -> bytes:
    """The defaults file with each KEY set to its value: existing assignments replaced, missing ones appended."""
    lines = [] if text is None else text.decode(errors="replace").splitlines()
    for key, value in env.items():
        pattern = re.compile(rf"\s*(?:export\s+)?{re.escape(key)}=")
        hits = [i for i, line in enumerate(lines) if pattern.match(line)]
        if hits:
            for i in hits:
                lines[i] = f"{key}={value}"
        else:
            lines.append(f"{key}={value}")
    return ("\n".join(lines) + "\n").encode()


def decide(nv_output: str | None, files: dict[str, bytes | None]) -> NvueOwner:
    """The preflight's decision from what the switch returned: `nv_output` is the output of the platform's
    show-config command, None when `nv` does not exist (no NVUE: nothing owns the files)."""
    spec = _spec()
    if nv_output is None:
        return NvueOwner(nv=False, files=files)
    owner = NvueOwner(nv=True, files=files)
    auto = str(spec["auto_save"])
    try:
        doc = device_json.loads(nv_output)
        node = doc.get(auto) if isinstance(doc, dict) else None
    except ValueError:  # device_json: not JSON, or nested too deep
        node = None
    known = cumulus_auto_save_off()
    if isinstance(node, dict):
        key = next((k for k in known if k in node), None)
        if key is not None:
            owner.auto_save_key, owner.auto_save_value = key, str(node[key])
    on_values = {str(v) for v in spec["auto_save_on"]}  # type: ignore[attr-defined]
    if owner.auto_save_key is None:
        owner.findings.append(f"NVUE auto-save state unreadable in `{spec['show_config']}` (treated as on)")
    elif owner.auto_save_value in on_values:
        owner.findings.append(f"NVUE auto-save on ({auto} {owner.auto_save_key} {owner.auto_save_value})")
    for path in startup_paths():
        if files.get(path) is not None:
            owner.findings.append(f"{path} present (NVUE applies it at boot)")
    env = env_path()
    for key, want in dict(spec["env"]).items():  # type: ignore[call-overload]
        got = env_value(files.get(env), key)
        if got != want:
            where = "missing" if files.get(env) is None else ("unset" if got is None else f"={got}")
            owner.findings.append(f"{key} in {env} not {want!r} ({where})")
    return owner


def read(session: DeviceSession) -> NvueOwner:
    """The preflight on the device: the watched files (one round trip) and NVUE's auto-save (one command)."""
    spec = _spec()
    files = remote.read_files(session, watched_paths())
    nv = shlex.quote(str(spec["nv"]))
    res = session.run(f"command -v {nv} >/dev/null 2>&1 || {{ echo {NO_NV}; exit 0; }}; {spec['show_config']}",
                      timeout=120)
    if NO_NV in res.stdout:
        return decide(None, files)
    if not res.ok:
        raise StepFailed(f"NVUE preflight: `{spec['show_config']}` failed: {res.tail(200)}")
    return decide(res.stdout, files)


def refusal(device: str, owner: NvueOwner) -> str:
    """The one line a refused push reports."""
    spec = _spec()
    return (f"{device}: NVUE still owns the Linux files ({owner.summary()}); its next apply or boot would overwrite "
            f"the push. Nothing changed. Fix: rerun with `--disable-nvue`, or on the switch turn auto-save off "
            f"(`{str(spec['set_auto_save']).format(key='<enable|state>', value='<off|disabled>')}` + "
            f"`{spec['apply']}`), move {', '.join(startup_paths())} away and set "
            f"{', '.join(f'{k}={v}' for k, v in dict(spec['env']).items())} in {env_path()}")  # type: ignore[call-overload]


def backup_dir(run: str) -> str:
    return f"{BACKUP_ROOT}/{run}"


def plan(owner: NvueOwner, run: str) -> list[str]:
    """What --disable-nvue does on this device, in order (for notes and --dry-run)."""
    spec = _spec()
    steps = []
    if owner.auto_save_key is not None and owner.auto_save_value in {str(v) for v in spec["auto_save_on"]}:  # type: ignore[attr-defined]
        steps.append(f"`{_auto_save_cmd(owner)}` + `{spec['apply']}`")
    elif owner.auto_save_key is None:
        steps.append("auto-save: state unreadable, not changed (turn it off by hand)")
    for path in startup_paths():
        if owner.files.get(path) is not None:
            steps.append(f"move {path} to {backup_dir(run)}{path}")
    env = env_path()
    if with_env(owner.files.get(env), dict(spec["env"])) != owner.files.get(env):  # type: ignore[call-overload]
        steps.append(f"write {', '.join(f'{k}={v}' for k, v in dict(spec['env']).items())} to {env} "  # type: ignore[call-overload]
                     f"(atomic rename)")
    return steps


def _auto_save_cmd(owner: NvueOwner, value: str | None = None) -> str:
    spec = _spec()
    key = owner.auto_save_key or ""
    off = cumulus_auto_save_off()[key] if value is None else value
    return str(spec["set_auto_save"]).format(key=shlex.quote(key), value=shlex.quote(off))


def env_upload(owner: NvueOwner, stage: str) -> dict[str, bytes]:
    """The new defaults file, uploaded to the stage dir with the push's other files."""
    return {f"{stage}/nvue-off/env": with_env(owner.files.get(env_path()), dict(_spec()["env"]))}  # type: ignore[call-overload]


def disable(session: DeviceSession, owner: NvueOwner, stage: str, run: str) -> list[str]:
    """--disable-nvue, inside the device lock, after the rollback is armed (its backups hold the watched files):
    auto-save off, startup.yaml moved aside, the env file replaced atomically. Returns what was done."""
    spec = _spec()
    done: list[str] = []
    if owner.auto_save_key is not None and owner.auto_save_value in {str(v) for v in spec["auto_save_on"]}:  # type: ignore[attr-defined]
        command = _auto_save_cmd(owner)
        res = session.run(f"{command} && {spec['apply']} && touch {stage}/nvue-autosave-off", timeout=600)
        if not res.ok:
            raise StepFailed(f"disable NVUE: `{command}` + `{spec['apply']}` failed: {res.tail(200)}")
        done.append(f"auto-save off (`{command}` + `{spec['apply']}`)")
    moves = [p for p in startup_paths() if owner.files.get(p) is not None]
    if moves:
        dest = backup_dir(run)
        cmd = " && ".join([f"umask 077 && mkdir -p {shlex.quote(dest)}"] +
                          [f"mkdir -p $(dirname {shlex.quote(dest + p)}) && mv -f {shlex.quote(p)} "
                           f"{shlex.quote(dest + p)}" for p in moves])
        res = session.run(cmd)
        if not res.ok:
            raise StepFailed(f"disable NVUE: moving {', '.join(moves)} to {dest} failed: {res.tail(200)}")
        done += [f"{p} moved to {dest}{p}" for p in moves]
    env = env_path()
    new = with_env(owner.files.get(env), dict(spec["env"]))  # type: ignore[call-overload]
    if new != owner.files.get(env):
        res = session.run(install_cmd(f"{stage}/nvue-off/env", env, 0o644))
        if not res.ok:
            raise StepFailed(f"disable NVUE: writing {env} failed: {res.tail(200)}")
        done.append(f"{env}: {', '.join(f'{k}={v}' for k, v in dict(spec['env']).items())}")  # type: ignore[call-overload]
    return done


def rollback_lines(owner: NvueOwner, stage: str) -> list[str]:
    """rollback.sh's first lines: auto-save back on (only if this run turned it off), before the files are
    restored (the apply may regenerate them; the restore that follows puts the exact bytes back). The watched
    files themselves are restored by the rollback's file copies (they are in the push's backup)."""
    if owner.auto_save_key is None or owner.auto_save_value is None:
        return []
    spec = _spec()
    return [f"[ ! -e {stage}/nvue-autosave-off ] || {{ {_auto_save_cmd(owner, owner.auto_save_value)} && "
            f"{spec['apply']}; }}"]
