"""``kestrel web``: serve the play and analyse pages on this machine and open them in the browser."""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import sys
import webbrowser
from collections.abc import Sequence

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def port_number(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a port number (0 to 65535): {text!r}")
    return int(text)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kestrel web", description="Play and analyse with Kestrel in the browser.")
    p.add_argument("--port", type=port_number, default=8000,
                   help="port to listen on (default 8000; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: only this machine can connect)")
    p.add_argument("--no-browser", action="store_true", help="do not open the page in the default browser")
    p.add_argument("--engines", type=int, default=3, choices=range(1, 9), metavar="N",
                   help="engine processes at most, shared by all pages (default 3, at most 8)")
    return p


async def serve(host: str, port: int, open_browser: bool, engines: int) -> None:
    from aiohttp import web

    from web.app import create_app

    runner = web.AppRunner(create_app(max_engines=engines))
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1] if runner.addresses else port
    shown = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    url = f"http://{shown if ':' not in shown else f'[{shown}]'}:{bound}/"
    print(f"Kestrel web: {url} (Ctrl-C stops it)", file=sys.stderr, flush=True)
    if open_browser:
        webbrowser.open(url)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(list(argv))
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        from tournaments.install import install_hint

        print(f"kestrel web needs the web extra: {install_hint('web')}", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print(f"Warning: --host {args.host} lets other machines reach the pages and start engines on this one; "
              f"the default 127.0.0.1 keeps them to this machine", file=sys.stderr)
    try:
        asyncio.run(serve(args.host, args.port, not args.no_browser, args.engines))
    except KeyboardInterrupt:
        return 0
    except OSError as err:
        print(f"kestrel web: cannot listen on {args.host}:{args.port}: {err}", file=sys.stderr)
        return 2
    return 0
