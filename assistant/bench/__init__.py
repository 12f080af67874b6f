"""Benchmarks behind `keepsake bench NAME`. Each module exposes ``add_arguments(parser)`` and
``run(args) -> dict`` (one JSON object, figures included). Ratios are against baselines measured
in the same run; machines are noisy, so absolute times are only context."""
