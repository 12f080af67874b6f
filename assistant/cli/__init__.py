"""The ``keepsake`` command.

Each command group lives in its own module with a ``register(subparsers)`` function; this module
only wires them together. Commands that print data accept ``--json``.
"""

from __future__ import annotations

import argparse
import sys

from assistant.cli import common
from assistant.engine.errors import EngineError, ModelError
from assistant.memory.errors import StoreError


def build_parser() -> argparse.ArgumentParser:
    from assistant.cli import bench, consolidate, core, engine, importer, memory, note, repair

    from assistant import __version__

    parser = argparse.ArgumentParser(prog="keepsake", description="Local-first assistant with an inspectable memory.")
    parser.add_argument("--version", action="version", version=f"keepsake {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (core, engine, memory, note, bench, importer, consolidate, repair):
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from assistant.privacy import private_umask

    private_umask()  # everything this process creates is the person's alone (0600 files, 0700 folders)
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (already printed): its exit code
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        from assistant.cli.core import launch_app

        return launch_app(args)
    common.setup_logging()
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return common.output_closed()
    except common.UserError as exc:
        return common.fail(args, str(exc), data=exc.data)
    except (StoreError, ModelError, EngineError) as exc:
        # Errors meant for the person: a bad id, a missing key, a broken model file.
        return common.fail(args, str(exc))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - a storage fault met outside the store's guard
        known = common.storage_fault(exc)
        if known is None:
            raise
        return common.fail(args, str(known))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
