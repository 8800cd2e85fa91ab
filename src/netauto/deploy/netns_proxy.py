"""`python -m netauto.deploy.netns_proxy NETNS HOST PORT`: an ssh ProxyCommand that relays stdin/stdout to
HOST:PORT as seen from inside network namespace NETNS (a lab's management network), for SSH clients that
cannot be handed a socket (Netmiko/NAPALM/scrapli through an ssh_config file)."""

from __future__ import annotations

import os
import selectors
import socket
import sys

from netauto.deploy.netns import connect_in_netns


def relay(netns: str, host: str, port: int) -> int:
    sock = connect_in_netns(netns, host, port)
    sock.setblocking(False)
    sel = selectors.DefaultSelector()
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    sel.register(stdin, selectors.EVENT_READ, "in")
    sel.register(sock, selectors.EVENT_READ, "sock")
    open_ends = 2
    while open_ends:
        for key, _ in sel.select():
            if key.data == "in":
                data = os.read(stdin, 65536)
                if not data:
                    sel.unregister(stdin)
                    sock.shutdown(1)  # SHUT_WR: the device sees EOF, keeps sending its answer
                    open_ends -= 1
                else:
                    _send_all(sock, data)
            else:
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    sel.unregister(sock)
                    open_ends = 0
                    break
                os.write(stdout, data)
    sock.close()
    return 0


def _send_all(sock: socket.socket, data: bytes) -> None:
    sock.setblocking(True)
    try:
        sock.sendall(data)
    finally:
        sock.setblocking(False)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3:
        print("usage: python -m netauto.deploy.netns_proxy NETNS HOST PORT", file=sys.stderr)
        return 2
    try:
        return relay(args[0], args[1], int(args[2]))
    except OSError as exc:
        print(f"netns_proxy: {args[1]}:{args[2]} in {args[0]}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
