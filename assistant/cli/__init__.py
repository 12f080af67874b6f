"""The ``keepsake`` command.

Each command group lives in its own module with a ``register(subparsers)`` function; this module
only wires them together. Commands that print data accept ``--json``.

:func:`main` is the CLI's edge: it loads the :class:`~assistant.profile.Profile` once and gives
every command ``args.services`` (closed when the command ends).
"""

from __future__ import annotations

import argparse
import sys

from assistant import __version__

# The command modules, the profile and the services are imported inside build_parser/main, not
# here: `keepsake --version` imports nothing else, and each module keeps its heavy imports (the
# store, llama.cpp, numpy) inside the commands that use them.


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line. With ``argv``, only the benchmark it names (if any) is imported
    for its options; without, every benchmark is (as for generated documentation)."""
    from assistant.cli import bench, consolidate, core, engine, importer, memory, note, notices, repair, sessions, transfer

    parser = argparse.ArgumentParser(prog="keepsake", description="Local-first assistant with an inspectable memory.")
    parser.add_argument("--version", action="version", version=f"keepsake {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (core, engine, memory, transfer, sessions, notices, note, importer, consolidate, repair):
        module.register(sub)
    bench.register(sub, only=bench.named_in(argv) if argv is not None else None)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--version"]:  # the one answer that needs no parser
        print(f"keepsake {__version__}")
        return 0
    from assistant.privacy import private_umask

    private_umask()  # everything this process creates is the person's alone (0600 files, 0700 folders)
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (already printed): its exit code
        return exc.code if isinstance(exc.code, int) else 2
    from assistant.cli import common, core
    from assistant.profile import Profile
    from assistant.services import Services

    profile = Profile.load()
    if getattr(args, "func", None) in (None, core.launch_app):  # `keepsake` and `keepsake app`: the window
        return core.launch_app(args, profile)
    common.setup_logging(profile.paths.logs)
    with Services(profile) as services:
        args.services = services
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Run the command; what goes wrong becomes one line for the person (exit code 2)."""
    from assistant.cli import common
    from assistant.engine.errors import EngineError, ModelError
    from assistant.memory.errors import StoreError

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
        known = common.storage_fault(exc, args.services.profile.database, common.database_key(args.services))
        if known is None:
            raise
        return common.fail(args, str(known))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
