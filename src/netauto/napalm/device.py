"""What every netauto NAPALM driver does, without importing NAPALM (`import napalm` loads every core driver,
about 1.4 s; `netauto verify` uses these classes directly): SSH through netauto's DeviceSession, batched reads,
NAPALM-shaped getters, and configuration through deploy's safe apply (stage, device-side check, armed on-device
rollback, apply, verify, confirm). netauto.napalm.drivers adds napalm's NetworkDriver and its exception types.

optional_args (all optional):
  session         an open netauto DeviceSession to use (e.g. Nornir's `netauto` connection); not closed by us
  key_file, known_hosts, check_host_keys, netns, port, frr_exec, ssh_config   as deploy.connection.open_session
  config_path     the file the candidate replaces (default: per driver, see `config_path()`)
  guard           file that must name the device before anything is written (the lab's node marker)

Peers in get_bgp_neighbors are keyed by FRR's neighbour name: the interface for BGP unnumbered sessions
(NAPALM's schema expects an address there; an unnumbered session has none).
"""

from __future__ import annotations

import difflib
import shlex
import uuid
from typing import Any

from netauto.deploy import identity, remote
from netauto.deploy.connection import DeviceSession, open_session
from netauto.deploy.device import ApplyOptions, apply_device, confirm, rollback
from netauto.deploy.push import DONE
from netauto.deploy.redact import redact
from netauto.deploy.targets import Target
from netauto.errors import NetautoError
from netauto.napalm import parsers
from netauto.render.engine import Artifact

_BEGIN, _END = "__NETAUTO_OUT__", "__NETAUTO_RC__"


class DriverError(NetautoError):
    """Base of the errors below; netauto.napalm.drivers re-raises each as NAPALM's exception of the same role."""


class ConnectionException(DriverError):
    pass


class ReplaceConfigException(DriverError):
    pass


class MergeConfigException(DriverError):
    pass


class CommitError(DriverError):
    pass


class NetautoDevice:
    platform = "linux"
    vendor = "Linux"
    kind = "server"  # "switch" | "server": which deploy pipeline applies a candidate
    lldp_container = ""  # SONiC: LLDP runs in the `lldp` container

    def __init__(self, hostname: str, username: str, password: str | None = None, timeout: int = 60,
                 optional_args: dict[str, Any] | None = None) -> None:
        self.hostname = hostname
        self.username = username or "root"
        self.password = password or None
        self.timeout = timeout
        self.optional_args = dict(optional_args or {})
        self.session: DeviceSession | None = self.optional_args.get("session")
        self._own_session = self.session is None
        self._cache: dict[str, tuple[int, str]] = {}
        self._candidate: bytes | None = None
        self._before: dict[str, bytes | None] | None = None
        self._pending: str | None = None  # stage dir of an unconfirmed commit
        self._name: str | None = None

    # ------------------------------------------------------------------ connection
    def open(self) -> None:
        if self.session is not None:
            return
        o = self.optional_args
        try:
            self.session = open_session(
                self.hostname, int(o.get("port", 22)), self.username, key_file=o.get("key_file"),
                password=self.password, known_hosts=o.get("known_hosts"),
                check_host_keys=o.get("check_host_keys", True), netns=o.get("netns"),
                frr_exec=o.get("frr_exec", ""), ssh_config=o.get("ssh_config"), timeout=float(self.timeout),
                device=o.get("device"),
            )
        except NetautoError as exc:
            raise ConnectionException(str(exc)) from None

    def close(self) -> None:
        if self.session is not None and self._own_session:
            self.session.close()
            self.session = None

    def is_alive(self) -> dict[str, bool]:
        transport = self.session.client.get_transport() if self.session else None
        return {"is_alive": bool(transport and transport.is_active())}

    @property
    def _s(self) -> DeviceSession:
        if self.session is None:
            raise ConnectionException(f"{self.hostname}: not open")
        return self.session

    # ------------------------------------------------------------------ batched reads
    def commands(self) -> dict[str, str]:
        """key -> shell command, for everything the getters read (one exec channel for any subset)."""
        lldp = self.lldp_container and f"docker exec -i {self.lldp_container} "
        return {
            "hostname": "hostname",
            "os_release": "cat /etc/os-release",
            "uptime": "cat /proc/uptime",
            "links": "ip -j -d link show",
            "speeds": 'for f in /sys/class/net/*/speed; do d=${f%/speed}; echo "${d##*/} $(cat $f 2>/dev/null)"; done',
            "lldp": f"{lldp}lldpcli -f json0 show neighbors details",
            "serial": "cat /sys/class/dmi/id/product_serial /sys/class/dmi/id/product_name 2>/dev/null",
        }

    def prefetch(self, *keys: str, extra: dict[str, str] | None = None) -> None:
        """Run the commands for `keys` (and `extra`: key -> command) in one round trip; each getter then
        consumes its output once (a later call reads the device again)."""
        cmds = {k: self.commands()[k] for k in keys}
        cmds.update(extra or {})
        self._cache.update(self.run_batch(cmds))

    def run_batch(self, cmds: dict[str, str], timeout: float = 120.0) -> dict[str, tuple[int, str]]:
        if not cmds:
            return {}
        tok = uuid.uuid4().hex[:12]  # per call: a command printing a marker cannot cut the output short
        begin, end = f"{_BEGIN}{tok}", f"{_END}{tok}"
        script = "; ".join(f"printf '\\n{begin} %s\\n' {shlex.quote(k)}; {{ {c}; }} 2>/dev/null </dev/null; "
                           f"printf '\\n{end} %s\\n' $?" for k, c in cmds.items())
        res = self._s.run(script, timeout=timeout)
        out: dict[str, tuple[int, str]] = {}
        key: str | None = None
        buf: list[str] = []
        for line in res.stdout.split("\n"):
            if line.startswith(begin + " "):
                key, buf = line[len(begin) + 1:], []
            elif line.startswith(end + " ") and key is not None:
                text = "\n".join(buf)
                out[key] = (int(line.split()[1]), text[:-1] if text.endswith("\n") else text)
                key = None
            elif key is not None:
                buf.append(line)
        missing = [k for k in cmds if k not in out]
        if missing:
            raise NetautoError(f"{self.hostname}: no output for {missing} ({res.tail(200)})")
        return out

    def output(self, key: str, command: str | None = None) -> tuple[int, str]:
        if key in self._cache:
            return self._cache.pop(key)
        return self.run_batch({key: command or self.commands()[key]})[key]

    def text(self, key: str) -> str:
        rc, text = self.output(key)
        return text if rc == 0 else ""

    def has(self, key: str) -> bool:
        """The command behind `key` ran (exit 0: the tool exists and answered)."""
        return self.output(key)[0] == 0

    # ------------------------------------------------------------------ getters
    def get_facts(self) -> dict[str, Any]:
        host = self.text("hostname").strip()
        osr = parsers.parse_os_release(self.text("os_release"))
        up = self.text("uptime").split()
        links = parsers.parse_ip_link(self.text("links"))
        serial = self.text("serial").splitlines()
        return {
            "hostname": host, "fqdn": host, "vendor": self.vendor,
            "model": serial[1] if len(serial) > 1 else "", "serial_number": serial[0] if serial else "",
            "os_version": osr.get("PRETTY_NAME", ""), "uptime": float(up[0]) if up else -1.0,
            "interface_list": sorted(links),
        }

    def get_interfaces(self) -> dict[str, dict[str, Any]]:
        """NAPALM's InterfaceDict per interface (exactly its keys; `last_flapped` -1.0: the kernel keeps no
        flap time). netauto's own reads want more: `interface_details`."""
        keys = ("is_up", "is_enabled", "description", "last_flapped", "speed", "mtu", "mac_address")
        return {n: {k: d[k] for k in keys} for n, d in self.interface_details().items()}

    def interface_details(self) -> dict[str, dict[str, Any]]:
        """netauto extra: get_interfaces plus the link kind (veth, bond...), operstate, master and bond mode."""
        links = parsers.parse_ip_link(self.text("links"))
        speeds = parsers.parse_speeds(self.text("speeds"))
        return {
            n: {"is_up": l.oper in ("UP", "UNKNOWN") and l.admin_up, "is_enabled": l.admin_up,
                "description": l.alias, "last_flapped": -1.0, "speed": float(speeds.get(n, 0)), "mtu": l.mtu,
                "mac_address": l.mac, "kind": l.kind, "oper_status": l.oper, "master": l.master,
                "bond_mode": l.mode}
            for n, l in links.items()
        }

    def get_lldp_neighbors(self) -> dict[str, list[dict[str, str]]]:
        return {port: [{"hostname": n.hostname, "port": n.port} for n in ns]
                for port, ns in parsers.parse_lldp_json0(self._lldp_text()).items()}

    def get_lldp_neighbors_detail(self, interface: str = "") -> dict[str, list[dict[str, Any]]]:
        out = {}
        for port, ns in parsers.parse_lldp_json0(self._lldp_text()).items():
            if interface and port != interface:
                continue
            out[port] = [{"parent_interface": "", "remote_port": n.port, "remote_port_description": n.port_description,
                          "remote_chassis_id": n.chassis_id, "remote_system_name": n.hostname,
                          "remote_system_description": n.system_description,
                          "remote_system_capab": [c for c, _ in n.capabilities],
                          "remote_system_enable_capab": [c for c, on in n.capabilities if on]} for n in ns]
        return out

    def _lldp_text(self) -> str:
        rc, text = self.output("lldp")
        if rc != 0:
            raise NetautoError(f"{self.hostname}: lldpcli failed (exit {rc}): is lldpd running?")
        return text

    def get_bgp_neighbors(self) -> dict[str, Any]:
        return {"global": {"router_id": "", "peers": {}}}

    # ------------------------------------------------------------------ configuration
    def config_path(self) -> str:
        return self.optional_args.get("config_path") or ""

    def _target(self, content: bytes) -> Target:
        """The push of one file. NAPALM replaces content only: the file keeps its mode and owner, and the device
        its fabric (the one it names; optional_args `fabric` to insist on one, `adopt` for a device that names
        none but holds the file)."""
        path = self.config_path()
        if self._name is None:
            self._name = self.text("hostname").strip() or self.hostname
        found, meta = remote.read_files_meta(self._s, identity.paths_for([path]))  # identity, mode, owner: one trip
        mode, owner = meta.get(path) or (0o644, None)
        claimed = identity.claim(found)
        fabric = self.optional_args.get("fabric") or claimed.fabric or ""
        # the device's own fabric id unless optional_args `fabric_id` insists on one (NAPALM has no inventory)
        fabric_id = self.optional_args.get("fabric_id") or (claimed.fabric_id if fabric == claimed.fabric else None)
        return Target(name=self._name, kind=self.kind, role="", nos=self.platform, host=self.hostname,
                      port=int(self.optional_args.get("port", 22)), username=self.username, netns=None,
                      files={path: Artifact(self._name, path.lstrip("/"), content.decode(), mode, owner)},
                      guard=self.optional_args.get("guard"), frr_exec=self._s.frr_exec, fabric=fabric,
                      adopt=bool(self.optional_args.get("adopt", False)), fabric_id=fabric_id)

    def get_config(self, retrieve: str = "all", full: bool = False, sanitized: bool = False,
                   format: str = "text") -> dict[str, str]:
        """running: what the device runs (switches: FRR's running-config; servers: the config file);
        startup: the file a candidate replaces, byte for byte; candidate: the loaded candidate. One round trip.
        `sanitized` replaces every secret with deploy's redaction rule."""
        path = self.config_path()
        cmds = {"running": self.running_command()}
        if path:
            cmds["startup"] = f"cat -- {shlex.quote(path)} && echo ."  # `.` keeps a final newline exact
        got = self.run_batch(cmds)
        startup = got["startup"][1].removesuffix(".") if got.get("startup", (1, ""))[0] == 0 else ""
        out = {"running": got["running"][1] if got["running"][0] == 0 else "", "startup": startup,
               "candidate": (self._candidate or b"").decode(errors="replace")}
        if sanitized:
            out = {k: redact(v) for k, v in out.items()}
        return out if retrieve == "all" else {k: (v if k == retrieve else "") for k, v in out.items()}

    def running_command(self) -> str:
        """The shell command that prints the running configuration (a server's: its config file)."""
        path = self.config_path()
        return f"cat -- {shlex.quote(path)}" if path else "true"

    def load_replace_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        if not self.config_path():
            raise ReplaceConfigException(f"{self.hostname}: no configuration file to replace (optional_args config_path)")
        if filename:
            with open(filename, "rb") as f:
                self._candidate = f.read()
        elif config is not None:
            self._candidate = config.encode()
        else:
            raise ReplaceConfigException("load_replace_candidate needs filename or config")

    def load_merge_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        raise MergeConfigException("netauto drivers replace whole files (the rendered intent); merge is not supported")

    def compare_config(self) -> str:
        if self._candidate is None:
            return ""
        path = self.config_path()
        running = remote.read_files(self._s, [path])[path]
        old = [] if running is None else running.decode(errors="replace").splitlines(True)
        return "".join(difflib.unified_diff(old, self._candidate.decode(errors="replace").splitlines(True),
                                            f"running:{path}", f"candidate:{path}"))

    def discard_config(self) -> None:
        self._candidate = None

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        if self._candidate is None:
            raise CommitError("no candidate loaded")
        if self._pending:
            raise CommitError(f"a commit is pending confirmation ({self._pending}): confirm_commit or rollback first")
        path = self.config_path()
        before = remote.read_files(self._s, [path])
        opts = ApplyOptions(confirm_timeout=float(revert_in or 600), confirm=revert_in is None, session_timeout=60)
        result = apply_device(self._s, self._target(self._candidate), opts)
        if result.result not in (*DONE, "unchanged"):
            raise CommitError(f"{self.hostname}: {result.result}: {result.error}")
        self._before = before
        self._pending = result.pending
        self._candidate = None

    def has_pending_commit(self) -> bool:
        return self._pending is not None

    def confirm_commit(self) -> None:
        if not self._pending:
            raise CommitError("no commit pending confirmation")
        confirm(self._s, self._pending)
        self._pending = None

    def rollback(self) -> None:
        """Back to the file (and running state) from before the last commit: the armed rollback when the
        commit is unconfirmed, otherwise the saved file pushed back through the same safe apply."""
        if self._before is None:
            raise CommitError("nothing to roll back (no commit in this session)")
        path = self.config_path()
        old = self._before[path]
        if self._pending:
            rollback(self._s, self._target(old or b""), self._before, self._pending)
            self._pending = None
        else:
            if old is None:
                raise CommitError(f"{path} did not exist before the commit; remove it by hand")
            result = apply_device(self._s, self._target(old), ApplyOptions(session_timeout=60))
            if result.result not in (*DONE, "unchanged"):
                raise CommitError(f"{self.hostname}: rollback {result.result}: {result.error}")
        self._before = None

