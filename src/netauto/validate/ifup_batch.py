"""Run `ifup -a -s -i FILE` for many files in one interpreter: import ifupdown2 once, fork per file.

Executed as a script by the system python3 (ifupdown2 lives in /usr/share/ifupdown2 and is not importable from
a virtualenv), never imported by netauto. Starting ifup costs about 0.4 s of CPU, almost all of it interpreter
start-up and loading ifupdown2's addon modules; forking a preloaded process costs a few milliseconds, and every
child still runs ifupdown2's own `main()` with fresh state, so the result is the one `ifup` prints.

Output framing is the one netauto's namespace batches use: BEGIN line, the child's stdout+stderr, END line with
the exit code.
"""

import importlib
import importlib.util
import os
import pkgutil
import sys

BEGIN, END = "@@NETAUTO-BEGIN@@", "@@NETAUTO-RC"
IFUPDOWN2 = "/usr/share/ifupdown2"


def load_ifup_main():
    sys.path.insert(0, IFUPDOWN2)
    spec = importlib.util.spec_from_file_location("netauto_ifup_main", os.path.join(IFUPDOWN2, "__main__.py"))
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
    return module.main


def check(main, path):
    sys.stdout.write(f"\n{BEGIN}\n")
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.dup2(1, 2)  # one stream, like `ifup ... 2>&1`
        sys.argv = ["/usr/sbin/ifup", "-a", "-s", "-i", path]
        try:
            code = main() or 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - the forked child must exit with a code, never unwind
            code = 70
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(f"\n{END} {os.waitstatus_to_exitcode(status)}@@\n")
    sys.stdout.flush()


def run(paths):
    main = load_ifup_main()
    for path in paths:
        check(main, path)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
