"""Run a render with template overrides inside limits.

Override templates (`--templates`) may come from a pull request that CI renders. Jinja2's sandbox keeps them
away from Python's internals but bounds neither time nor memory: a nested loop runs forever and `[1] * 10**8`
allocates gigabytes. So a render with overrides runs in a forked child process with
- a wall-time bound per rendered file (SIGALRM in the child; SIGKILL from the parent when the child's
  heartbeat stops for longer),
- an address-space bound (RLIMIT_AS: what the parent already maps plus the memory budget),
- a bound on the rendered bytes sent back,
and the sandbox itself refuses `*`/`**` results above MAX_SEQUENCE items / MAX_POWER (guarded before the C code
runs, which no signal can interrupt) and templates larger than MAX_TEMPLATE_BYTES. Any failure is one line naming
the template and line, exit 2 (TemplateLimitError).

Defaults, raised through the environment: NETAUTO_TEMPLATE_TIMEOUT (seconds per rendered file, default 20) and
NETAUTO_TEMPLATE_MEMORY_MIB (default 1024).
"""

from __future__ import annotations

import os
import pickle
import resource
import select
import signal
import time
import traceback
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any

import jinja2
import jinja2.sandbox

from netauto import forking
from netauto.errors import NetautoError

TIMEOUT_ENV = "NETAUTO_TEMPLATE_TIMEOUT"
MEMORY_ENV = "NETAUTO_TEMPLATE_MEMORY_MIB"
DEFAULT_TIMEOUT_S = 20.0
DEFAULT_MEMORY_MIB = 1024
MAX_OUTPUT_BYTES = 2 * 1024**3  # everything the child sends back (the 10k example: ~60 MB)
MAX_SEQUENCE = 1_000_000  # items (or characters) of one `*` result in an override template
MAX_POWER = 2**64  # largest `**` result
MAX_TEMPLATE_BYTES = 1024 * 1024  # one override template file (the built-in ones are < 20 KiB)
GRACE_S = 3.0  # after the child's own alarm, the parent kills it


class TemplateLimitError(NetautoError):
    """A template override failed or exceeded a bound: one line, exit 2."""

    exit_code = 2


def _limit(env: str, default: float) -> float:
    raw = os.environ.get(env)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise TemplateLimitError(f"{env}={raw!r} is not a number (fix: e.g. {env}={default:g})") from None
    if value <= 0:
        raise TemplateLimitError(f"{env}={raw!r} must be positive (fix: e.g. {env}={default:g})")
    return value


class BoundedSandbox(jinja2.sandbox.ImmutableSandboxedEnvironment):
    """The sandbox with `*` and `**` checked before they run (a C-level multiplication cannot be interrupted)."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(times, int) and len(seq) * times > MAX_SEQUENCE:
                    raise jinja2.sandbox.SecurityError(
                        f"a {type(seq).__name__} of {len(seq)} times {times} is more than {MAX_SEQUENCE:,} items")
        if operator == "**" and isinstance(left, (int, float)) and isinstance(right, (int, float)):
            if abs(left) > 1 and right > 0 and right * int(max(abs(left), 2)).bit_length() > MAX_POWER.bit_length():
                raise jinja2.sandbox.SecurityError(f"{left} ** {right} is larger than {MAX_POWER}")
        return super().call_binop(context, operator, left, right)


def _template_frame(tb: TracebackType | None) -> tuple[str, int] | None:
    """The innermost frame that executes a template (Jinja2 rewrites tracebacks to template files and lines)."""
    found = None
    for frame, line in traceback.walk_tb(tb):
        name = frame.f_code.co_filename
        if name.endswith(".j2") or "/templates/" in name:
            found = (name, line)
    return found


def _where(tb: TracebackType | None, current: str) -> str:
    frame = _template_frame(tb)
    if frame is None:
        return f"template {current}"
    return f"template {frame[0]}:{frame[1]}"


def _describe(exc: BaseException, current: str) -> str:
    if isinstance(exc, NetautoError):
        return " ".join(str(exc).split())
    where = _where(exc.__traceback__, current)
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return f"template {exc.filename or exc.name or current}:{exc.lineno}: {exc.message}"
    if isinstance(exc, MemoryError):
        return f"{where}: used more than the memory bound (fix: simplify the template, or raise {MEMORY_ENV})"
    if isinstance(exc, RecursionError):
        return f"{where}: recursion too deep (fix: bound the macro's recursion)"
    if isinstance(exc, TimeoutError):
        return f"{where}: {exc} (fix: simplify the template, or raise {TIMEOUT_ENV})"
    text = " ".join(str(exc).split())
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{where}: {type(exc).__name__}: {text}"


def _vm_bytes() -> int:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


CURRENT = {"template": "?"}  # the template being rendered (set by the engine; read in the child for messages)
_CHILD: dict[str, Any] = {}  # in the child: the heartbeat pipe, the bound and when it last beat


def started(template: str) -> None:
    """The engine starts rendering one file with `template`. In the bounded child the wall-time bound starts
    again (it bounds each file: an endless loop is one file, while the 10k example renders 12,672 legitimate
    files that take longer than any single bound together) and the parent hears a heartbeat (at most every
    0.2 s), so it kills only a child that stopped making progress."""
    CURRENT["template"] = template
    if not _CHILD:
        return
    signal.setitimer(signal.ITIMER_REAL, _CHILD["timeout"])
    now = time.monotonic()
    if now - _CHILD["beat"] > 0.2:
        _CHILD["beat"] = now
        os.write(_CHILD["fd"], b".")


def run_bounded(work: Callable[[], list[Any]]) -> list[Any]:
    """`work()` in a forked child under the bounds; its result, or TemplateLimitError (one line)."""
    timeout = _limit(TIMEOUT_ENV, DEFAULT_TIMEOUT_S)
    memory = int(_limit(MEMORY_ENV, DEFAULT_MEMORY_MIB) * 1024 * 1024)
    if not forking.fork_usable():  # pragma: no cover - not POSIX: the sandbox guards only
        return work()
    read_fd, write_fd = os.pipe()
    beat_read, beat_write = os.pipe()
    parent = os.getpid()

    def child() -> int:  # netauto.forking's rule: this work, its pipes, os._exit
        forking.die_with_parent(parent)
        os.close(read_fd)
        os.close(beat_read)
        _CHILD.update(fd=beat_write, timeout=timeout, beat=0.0)
        return _child(work, write_fd, timeout, memory)

    pid = forking.fork_child(child)
    os.close(write_fd)
    os.close(beat_write)
    try:
        return _parent(pid, read_fd, beat_read, timeout)
    finally:
        os.close(beat_read)


def _child(work: Callable[[], list[Any]], fd: int, timeout: float, memory: int) -> int:
    code = 0
    try:
        def alarm(_sig: int, _frame: FrameType | None) -> None:
            raise TimeoutError(f"still rendering after {timeout:g} s")

        signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        vm = _vm_bytes()
        if vm:
            resource.setrlimit(resource.RLIMIT_AS, (vm + memory, vm + memory))
        try:
            result = work()
            signal.setitimer(signal.ITIMER_REAL, 0)
            payload = pickle.dumps(("ok", result), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # noqa: BLE001 - every failure is reported as one line
            signal.setitimer(signal.ITIMER_REAL, 0)
            payload = pickle.dumps(("error", _describe(exc, CURRENT["template"])))
        signal.setitimer(signal.ITIMER_REAL, 0)
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view[: 1 << 20]):]
    except BaseException:  # noqa: BLE001 - the parent reports a child that sent nothing
        code = 1
    return code


def _parent(pid: int, fd: int, beat: int, timeout: float) -> list[Any]:
    deadline = time.monotonic() + timeout + GRACE_S
    chunks: list[bytes] = []
    size = 0
    killed = ""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                killed = f"still rendering after {timeout:g} s (fix: simplify the template, or raise {TIMEOUT_ENV})"
                break
            ready, _, _ = select.select([fd] + ([beat] if beat >= 0 else []), [], [], left)
            if beat >= 0 and beat in ready:
                if not os.read(beat, 4096):
                    beat = -1  # the child closed it (it ended): only the result is left to read
                deadline = time.monotonic() + timeout + GRACE_S  # the child is making progress
            if fd not in ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_OUTPUT_BYTES:
                killed = f"rendered more than {MAX_OUTPUT_BYTES // 1024**2} MiB (fix: check the override templates' loops)"
                break
    finally:
        os.close(fd)
        if killed:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if killed:
        raise TemplateLimitError(f"template overrides: {killed}")
    try:
        kind, value = pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 - a child killed by the kernel (out of memory) sends nothing whole
        how = f"signal {-os.waitstatus_to_exitcode(status)}" if os.WIFSIGNALED(status) else "no result"
        raise TemplateLimitError(f"template overrides: the render ended with {how} (fix: simplify the templates, "
                                 f"or raise {MEMORY_ENV} / {TIMEOUT_ENV})") from None
    if kind == "error":
        raise TemplateLimitError(value)
    return list(value)
