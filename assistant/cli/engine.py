"""``keepsake engine``: which engine runs the chat - llama.cpp here, or an OpenAI-compatible model
server (the same settings as Settings → Model server in the app)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from assistant.cli.common import UserError, add_json, emit


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("engine", help="show or set the chat engine (llama.cpp here, or a model server)")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    show = actions.add_parser("show", help="the engine in use and, for a server, its check")
    add_json(show)
    show.set_defaults(func=cmd_show)
    s = actions.add_parser("server", help="chat on an OpenAI-compatible server from now on")
    s.add_argument("url", help="its OpenAI base URL, e.g. http://gpu-box:8080/v1")
    s.add_argument("--model", default=None, help="the server's model (default: the first it lists)")
    s.add_argument("--api-key-stdin", action="store_true", help="read an API key from stdin (kept in the OS keyring)")
    s.add_argument("--no-api-key", action="store_true", help="forget the stored API key for this server")
    add_json(s)
    s.set_defaults(func=cmd_server)
    local = actions.add_parser("local", help="chat with the local llama.cpp model again (the server stays configured)")
    add_json(local)
    local.set_defaults(func=cmd_local)
    p.set_defaults(func=cmd_show, json=False)


def _engine_report(profile) -> dict:
    from assistant.doctor import engine_checks  # deferred: imported by the command that runs it

    settings = profile.settings
    checks = [c.to_json() for c in engine_checks(profile)]
    return {"engine": "openai" if settings.uses_server else "llama.cpp", "url": settings.engine_url or None,
            "model": settings.engine_model or None, "ok": all(c["ok"] for c in checks), "checks": checks}  # fmt: skip


def _print(args, report: dict) -> int:
    emit(args, report, "\n".join(f"[{'ok  ' if c['ok'] else 'FAIL'}] {c['name']}: {c['detail']}" for c in report["checks"]))
    return 0 if report["ok"] else 1


def cmd_show(args) -> int:
    return _print(args, _engine_report(args.services.profile))


def cmd_server(args) -> int:
    from assistant.engine.server import api_key  # deferred: the keyring, the HTTP client
    from assistant.services import database_key_reader
    from assistant.engine.server.client import Endpoint

    services = args.services
    try:
        url = Endpoint.parse(args.url).url
    except ValueError as exc:
        raise UserError(str(exc)) from None
    settings = services.settings.with_server(url, args.model)
    p = services.profile.paths
    if args.api_key_stdin:
        key = sys.stdin.readline().strip()
        if not key:
            raise UserError("no API key on stdin")
        print(f"keepsake: API key stored in {api_key.save(url, key, p, secret=database_key_reader(services.profile))}", file=sys.stderr)
    elif args.no_api_key:
        api_key.save(url, None, p, secret=database_key_reader(services.profile))
    services.save_settings(settings)
    return _print(args, _engine_report(services.profile))


def cmd_local(args) -> int:
    services = args.services
    services.save_settings(replace(services.settings, engine="local"))
    return _print(args, _engine_report(services.profile))
