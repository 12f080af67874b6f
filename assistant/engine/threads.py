"""How many threads llama.cpp gets for one reply: no more than the cores other programs leave free.

llama.cpp's threads meet at a barrier after every layer and spin while they wait; a thread whose
core another program holds keeps the others spinning, so a reply slows down by far more than
the share of CPU it lost. Measured on a 2-core machine with one busy process per core, the
default SmolLM2-135M, 41 tokens: 2 threads 1.9 tokens/s, 1 thread 19.4 tokens/s (the app's
worker niceness, 8); at niceness 0, 3.5 vs 26.4. With one core busy (load ~3): a 1,540-token
prompt 53 vs 146 tokens/s, generation 4.1 vs 89 tokens/s. With the cores free the configured
number stays (as before).

    threads_for(configured=4, cpus=2, busy_cores=0.1)   -> 2  (the cores are free)
    threads_for(configured=4, cpus=2, busy_cores=1.9)   -> 1  (round(2 - 1.9) = 0, at least 1)
    threads_for(configured=2, cpus=8, busy_cores=3.0)   -> 2  (the configured number caps it)

The busy cores are sampled over :data:`SAMPLE_S` just before the reply: the whole machine's
busy time less this process's own (:func:`busy_cores`), so Keepsake's own capture or tidy-up
does not count as another program.
"""

from __future__ import annotations

import os
import time

#: How long the CPU is sampled before a reply (added to the time to the first token).
SAMPLE_S = 0.05


def threads_for(configured: int, cpus: int, busy_cores: float) -> int:
    """``round(cpus - busy_cores)`` threads, at least 1 and at most ``configured``."""
    return max(1, min(int(configured), int(cpus - busy_cores + 0.5)))


def busy_cores(sample_s: float = SAMPLE_S) -> float:
    """Cores other programs kept busy over the next ``sample_s`` seconds: the machine's busy
    fraction x its cores, less this process's CPU time over the same span; 0.0 when it cannot
    be read (the full configured number is then used)."""
    try:
        import psutil  # deferred: only when a reply starts

        me = psutil.Process()
        t0, mine0 = time.perf_counter(), sum(me.cpu_times()[:2])
        psutil.cpu_percent(interval=None)
        time.sleep(sample_s)
        total = psutil.cpu_percent(interval=None) / 100 * (os.cpu_count() or 1)
        mine = (sum(me.cpu_times()[:2]) - mine0) / max(time.perf_counter() - t0, 1e-6)
    except Exception:  # noqa: BLE001 - a sandbox without /proc: no adaptation, never a failed reply
        return 0.0
    return max(0.0, total - mine)


def reply_threads(configured: int | None, busy: float | None = None) -> int:
    """Threads for one reply: :func:`threads_for` with the cores sampled now (``busy`` given:
    that many busy cores); ``configured`` None means every core."""
    cpus = os.cpu_count() or 1
    configured = configured or cpus
    if configured <= 1:
        return 1
    return threads_for(configured, cpus, busy_cores() if busy is None else busy)
