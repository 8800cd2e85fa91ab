"""Run `ifup -a -s -i FILE` for many files in one interpreter: import ifupdown2 once, fork per file.

Executed as a script by the system python3 (ifupdown2 lives in /usr/share/ifupdown2 and is not importable from
a virtualenv), never imported by netauto. Starting ifup costs about 0.4 s of CPU, almost all of it interpreter
start-up and loading ifupdown2's addon modules; forking a preloaded process costs a few milliseconds, and every
child still runs ifupdown2's own `main()` with fresh state, so the result is the one `ifup` prints.

Every child also asks the host the same few questions whatever the file says (`modprobe -q bonding`, `sysctl
net.bridge.bridge-allow-multiple-vlans`, `ip rule show`, `ip -6 rule show`, `ip vrf id`, `ip addr help`): six
processes, ~40% of a child's CPU. Those read-only host queries (the exact argument lists of HOST_QUERIES, no
stdin, no env) are run once in the parent through ifupdown2's own `utils._execute_subprocess`, and every child
gets the same output or the same exception from a memo: the answer it would have got, the host does not change
between two files of one batch. Any other command runs as ifupdown2 runs it.

Also before the fork: the modules a run imports lazily, addressvirtual's `ip addr help` probe (cached per process
by the addon itself), `gc.freeze()`, and a 5 ms ceiling on the netlink listener's select() so a child does not sleep
0.1 s at exit waiting for that thread (`prompt_listener_shutdown`). Measured on a 10k leaf: ~37 ms of CPU and
~40 ms of wall per file, from ~50 ms CPU and ~150 ms wall.

Output framing is the one netauto's namespace batches use: BEGIN line, the child's stdout+stderr, END line with
the exit code. The children follow netauto.forking's rule (loaded by its path: this interpreter has no netauto).
"""

import gc
import importlib
import importlib.util
import os
import pkgutil
import subprocess
import sys
from collections.abc import Callable
from typing import Any

def _load_forking() -> Any:
    """netauto/forking.py (stdlib only), loaded by its path beside this package."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "forking.py")
    spec = importlib.util.spec_from_file_location("netauto_forking", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


forking = _load_forking()
BEGIN, END = "@@NETAUTO-BEGIN@@", "@@NETAUTO-RC"
IFUPDOWN2 = "/usr/share/ifupdown2"
HOST_QUERIES = (  # ifupdown2 3.x, `ifup -a -s` on a Cumulus interfaces file: asked once per child
    ("modprobe", "-q", "bonding"),
    ("/sbin/sysctl", "net.bridge.bridge-allow-multiple-vlans"),
    ("/bin/ip", "rule", "show"),
    ("/bin/ip", "-6", "rule", "show"),
    ("/usr/sbin/ip", "vrf", "id"),
    ("/bin/ip", "addr", "help"),
)


def memoise_host_queries() -> None:
    """Answer HOST_QUERIES from a memo filled here, in the parent (see the module docstring)."""
    try:
        from ifupdown.utils import utils  # lazy: the system's ifupdown2, only where installed
    except ImportError:
        return
    original = utils.__dict__.get("_execute_subprocess")
    if not isinstance(original, classmethod):
        return
    run = original.__func__
    memo: dict[tuple[str, ...], tuple[bool, Any]] = {}
    for cmd in HOST_QUERIES:
        try:
            memo[cmd] = (True, run(utils, list(cmd)))
        except Exception as exc:  # noqa: BLE001 - the child gets the same exception ifupdown2 would raise
            memo[cmd] = (False, str(exc))

    def execute(cls: Any, cmd: Any, env: Any = None, shell: bool = False, close_fds: bool = False, stdout: Any = True,
                stdin: Any = None, stderr: Any = subprocess.STDOUT) -> Any:
        key = tuple(cmd) if isinstance(cmd, (list, tuple)) else None
        if (key in memo and env is None and not shell and stdin is None and stdout is True
                and stderr == subprocess.STDOUT):
            ok, value = memo[key]
            if ok:
                return value
            raise Exception(value)  # noqa: TRY002 - the type ifupdown2 raises
        return run(cls, cmd, env=env, shell=shell, close_fds=close_fds, stdout=stdout, stdin=stdin, stderr=stderr)

    utils._execute_subprocess = classmethod(execute)


# modules every `ifup` imports on its first call (found by diffing sys.modules around a child's run): imported once
# here, before forking, instead of once per file
LAZY_MODULES = ("configparser", "ifupdown.main", "ifupdown.ifupdownmain", "ifupdown.networkinterfaces",
                "ifupdown.scheduler", "ifupdown.graph", "ifupdown.template", "shutil", "bz2", "lzma", "zlib")


def probe_address_metric() -> None:
    """addons/addressvirtual.py asks `ip addr help` whether `metric` is supported the first time an addressvirtual
    object is built in a process and keeps the answer in the class (ADDR_METRIC_SUPPORT): asked here, before the
    fork, with the addon's own command and test, every child starts with the answer it would have computed."""
    addon = getattr(sys.modules.get("addressvirtual"), "addressvirtual", None)
    if addon is None or getattr(addon, "ADDR_METRIC_SUPPORT", False) is not None:
        return
    try:
        from ifupdown.utils import utils  # lazy: the system's ifupdown2, only where installed

        process = subprocess.Popen([utils.ip_cmd, "addr", "help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, stderr = process.communicate()
        addon.ADDR_METRIC_SUPPORT = "[ metric METRIC ]" in stderr.decode() or ""
    except Exception:  # noqa: BLE001 - as the addon does
        addon.ADDR_METRIC_SUPPORT = False


SELECT_CEILING = 0.005  # seconds


def prompt_listener_shutdown() -> None:
    """ifupdown2's netlink listener thread (nlmanager/nllistener.py NetlinkListener.run) waits in select() up to
    0.1 s between looks at its shutdown event, and every ifup joins it before exiting (lib/nlcache.py cleanup):
    ~0.1 s of sleep per file, more than the child's CPU time, which left the core idle. Its select() gets a
    ceiling of SELECT_CEILING: a readable socket returns at once whatever the timeout, so the thread reads and
    handles the same packets; it only notices the shutdown sooner."""
    listener = sys.modules.get("nlmanager.nllistener")
    real = getattr(listener, "select", None)
    if real is None:
        return

    def select(rlist: Any, wlist: Any, xlist: Any, timeout: float | None = None) -> Any:
        return real(rlist, wlist, xlist, SELECT_CEILING if timeout is None else min(timeout, SELECT_CEILING))

    listener.select = select  # type: ignore[union-attr]


def remember_missing_package() -> None:
    """ifupdown2 tries `from ifupdown2.lib... import` before `from lib... import` at dozens of call sites (one try
    per addon object built): the package `ifupdown2` is not importable from /usr/share/ifupdown2, and Python
    searches sys.path again on every failed import. When it is really missing, record that in sys.modules (None:
    the import fails at once with the same ModuleNotFoundError), so each child takes the fallback without the
    search."""
    if "ifupdown2" not in sys.modules and importlib.util.find_spec("ifupdown2") is None:
        sys.modules["ifupdown2"] = None  # type: ignore[assignment]


def load_ifup_main() -> Callable[[], int | None]:
    sys.path.insert(0, IFUPDOWN2)
    spec = importlib.util.spec_from_file_location("netauto_ifup_main", os.path.join(IFUPDOWN2, "__main__.py"))
    if spec is None or spec.loader is None:
        raise ImportError(f"no ifupdown2 at {IFUPDOWN2}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # ifupdown2 imports its addons by bare name from this folder when it starts: do it once, before forking
    addons = os.path.join(IFUPDOWN2, "addons")
    sys.path.insert(1, addons)
    for info in pkgutil.iter_modules([addons]):
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - an addon that cannot load here is reported by ifup itself, in the child
            pass
    remember_missing_package()
    for name in LAZY_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the child imports it itself (and reports what fails)
            pass
    return module.main


def check(main: Callable[[], int | None], path: str) -> None:
    sys.stdout.write(f"\n{BEGIN}\n")
    parent = os.getpid()

    def child() -> int:  # exits 1 (SystemExit without a code) or 70 (an exception), as before
        forking.die_with_parent(parent)
        os.dup2(1, 2)  # one stream, like `ifup ... 2>&1`
        sys.argv = ["/usr/sbin/ifup", "-a", "-s", "-i", path]
        return main() or 0

    pid = forking.fork_child(child)
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(f"\n{END} {os.waitstatus_to_exitcode(status)}@@\n")
    sys.stdout.flush()


def run(paths: list[str]) -> int:
    main = load_ifup_main()
    memoise_host_queries()
    probe_address_metric()
    prompt_listener_shutdown()
    gc.freeze()  # the preloaded objects stay out of the children's collections (no copy-on-write of their pages)
    for path in paths:
        check(main, path)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
