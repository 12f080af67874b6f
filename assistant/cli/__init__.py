"""The ``keepsake`` command.

Each command group lives in its own module with a ``register(subparsers)`` function; this module
only wires them together. Commands that print data accept ``--json``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from assistant.cli import common
from assistant.engine.errors import ModelError
from assistant.memory.errors import StoreError


def build_parser() -> argparse.ArgumentParser:
    from assistant.cli import bench, consolidate, core, importer, memory, note

    from assistant import __version__

    parser = argparse.ArgumentParser(prog="keepsake", description="Local-first assistant with an inspectable memory.")
    parser.add_argument("--version", action="version", version=f"keepsake {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (core, memory, note, bench, importer, consolidate):
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        from assistant.cli.core import launch_app

        return launch_app(args)
    try:
        return int(args.func(args) or 0)
    except common.UserError as exc:
        return common.fail(args, str(exc))
    except (StoreError, ModelError) as exc:
        # Errors meant for the person: a bad id, a missing key, a broken model file.
        return common.fail(args, str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `keepsake memory list | head`: the reader left; not an error
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes stdout at exit
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
