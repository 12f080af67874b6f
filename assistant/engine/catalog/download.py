"""Download a catalog model into the user models folder: resumable, verified, atomic, cancellable.

The HTTP work is ``huggingface_hub``'s (imported here only, when a download starts: no other
command loads it or opens a socket): ``get_hf_file_metadata`` asks the hub (``HF_ENDPOINT``,
default https://huggingface.co) for the file's size, commit and LFS etag (the SHA-256 of an LFS
file), ``http_get`` streams it with ``Range`` requests. No token is ever sent (``token=False``).

Steps, and what each guarantees:

1. metadata: the hub's SHA-256 (LFS etag) must equal the catalog's when the catalog has one;
   without either there is nothing to verify against and the download is refused;
2. disk: ``size - bytes already fetched + 16 MiB <= free`` before any byte is fetched, else
   :class:`DiskFullError`; a disk that fills up anyway (ENOSPC/EDQUOT/EFBIG) removes the partial file;
3. fetch into ``models/.downloads/<file>.part`` (a folder ``keepsake models`` does not list),
   appending to what an earlier, interrupted run left (its etag is kept beside it in ``.part.json``:
   a different file on the hub starts over);
4. verify: SHA-256 of the whole file; a mismatch deletes it (:class:`VerifyError`);
5. ``os.replace`` into ``models/<file>``: the file appears complete and verified, or not at all.

Cancel (a :class:`threading.Event`) stops between chunks and deletes the partial file; a killed
process or a lost connection keeps it, so the same command resumes.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from assistant.engine.catalog import machine
from assistant.engine.catalog.entries import CatalogEntry

DEFAULT_ENDPOINT = "https://huggingface.co"
STAGING = ".downloads"
HEADROOM = 16 * 1024 * 1024
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class DownloadError(Exception):
    """A download that did not produce a verified file; the message is for the person."""


class DiskFullError(DownloadError):
    pass


class VerifyError(DownloadError):
    pass


class DownloadCancelled(DownloadError):
    pass


@dataclass(frozen=True)
class DownloadProgress:
    """One progress event. ``done``/``total`` are bytes of the file (including what an earlier run
    fetched); ``speed`` is bytes/s over the last 5 s of this run; ``eta`` = (total - done) / speed."""

    entry_id: str
    phase: str  # "connecting" | "downloading" | "verifying" | "done"
    done: int
    total: int
    speed: float = 0.0
    eta: float | None = None

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0


@dataclass(frozen=True)
class DownloadResult:
    path: Path
    sha256: str
    size: int
    fetched: int  # bytes fetched by this run (0 when the file was already there)
    resumed_from: int  # bytes an earlier run had fetched
    seconds: float


def endpoint() -> str:
    """The hub this download talks to: ``HF_ENDPOINT`` (a mirror, or a test server) or the hub."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def target(entry: CatalogEntry, models: Path) -> Path:
    return Path(models) / entry.file


def downloaded(entry: CatalogEntry, models: Path) -> Path | None:
    """The verified file of ``entry`` in ``models`` (only verified files ever get there)."""
    path = target(entry, models)
    return path if path.is_file() else None


def partial_bytes(entry: CatalogEntry, models: Path) -> int:
    part = Path(models) / STAGING / (entry.file + ".part")
    return part.stat().st_size if part.is_file() else 0


def gb(n: float) -> str:
    return f"{n / 1e9:.2f} GB"


def duration(seconds: float | None) -> str:
    """``1 min 33 s``, ``2 h 05 min``; ``--`` when unknown."""
    if seconds is None:
        return "--"
    s = int(seconds)
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


def progress_text(p: DownloadProgress) -> str:
    """``45% · 0.95 of 2.10 GB · 12.3 MB/s · 1 min 33 s left`` (the CLI's stderr, the app's label)."""
    if p.phase == "connecting":
        return f"Connecting to {endpoint()}…"
    if p.phase == "verifying":
        return f"Checking the file (SHA-256) {p.fraction:.0%}"
    if p.phase == "done":
        return f"Done · {gb(p.total)}"
    unit, scale = ("GB", 1e9) if p.total >= 1e9 else ("MB", 1e6)
    return (f"{p.fraction:.0%} · {p.done / scale:.2f} of {p.total / scale:.2f} {unit} · {p.speed / 1e6:.1f} MB/s · "
            f"{duration(p.eta)} left")  # fmt: skip


class _Rate:
    """Bytes/s over a sliding 5-second window."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock, self.samples = clock, deque()

    def add(self, fetched: int) -> float:
        now = self.clock()
        self.samples.append((now, fetched))
        while len(self.samples) > 2 and now - self.samples[0][0] > 5.0:
            self.samples.popleft()
        (t0, b0), (t1, b1) = self.samples[0], self.samples[-1]
        return (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0


class _Sink:
    """The file object ``http_get`` writes to: counts bytes, reports progress, honours cancel."""

    def __init__(self, f, done: int, report: Callable[[int, bool], None], cancel: threading.Event) -> None:
        self.f, self.done, self.report, self.cancel = f, done, report, cancel

    def write(self, chunk: bytes) -> int:
        if self.cancel.is_set():
            raise DownloadCancelled("download cancelled")
        n = self.f.write(chunk)
        self.done += len(chunk)
        self.report(self.done, False)
        return n

    def tell(self) -> int:
        return self.f.tell()

    def seek(self, *args) -> int:
        return self.f.seek(*args)

    def truncate(self, *args) -> int:  # the server ignored Range: http_get starts over
        size = self.f.truncate(*args)
        self.done = self.f.tell() if not args else args[0]
        return size


def _hf():
    """huggingface_hub, with its telemetry off: left on, building the request headers fetches
    ``{HF_ENDPOINT}/api/agent-harnesses`` (a request unrelated to the file, once a day) and caches it
    in ~/.cache/huggingface. Its settings are read at import, so they are set before and after."""
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1")
    from huggingface_hub import constants, file_download, utils

    constants.HF_HUB_DISABLE_TELEMETRY = True
    return file_download, utils


def _metadata(entry: CatalogEntry, hub: str):
    file_download, _ = _hf()
    get_hf_file_metadata, hf_hub_url = file_download.get_hf_file_metadata, file_download.hf_hub_url

    url = hf_hub_url(entry.repo, entry.file, revision=entry.revision, endpoint=hub)
    try:
        return get_hf_file_metadata(url, token=False, endpoint=hub)
    except Exception as exc:  # noqa: BLE001 - network, HTTP and offline errors alike: one line
        raise DownloadError(f"cannot get {entry.file} from {hub}: {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__


def _expected_sha(entry: CatalogEntry, etag: str | None) -> str:
    hub_sha = etag.lower() if etag and _SHA256.match(etag.lower()) else None
    if entry.sha256 and hub_sha and entry.sha256 != hub_sha:
        raise VerifyError(
            f"the hub's {entry.file} (SHA-256 {hub_sha[:12]}...) is not the file the catalog was "
            f"reviewed with (SHA-256 {entry.sha256[:12]}...): nothing was downloaded"
        )
    sha = entry.sha256 or hub_sha
    if not sha:
        raise VerifyError(f"{entry.file}: the catalog has no SHA-256 and the hub gave none: it cannot be verified")
    return sha


def _discard(*paths: Path) -> None:
    for p in paths:
        p.unlink(missing_ok=True)


def sha256_file(path: Path, on_bytes: Callable[[int], None] | None = None,
                cancel: threading.Event | None = None) -> str:  # fmt: skip
    h, done = hashlib.sha256(), 0
    with open(path, "rb") as f:
        while chunk := f.read(4 * 1024 * 1024):
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled("download cancelled")
            h.update(chunk)
            done += len(chunk)
            if on_bytes:
                on_bytes(done)
    return h.hexdigest()


def download(
    entry: CatalogEntry,
    models: Path,
    *,
    progress: Callable[[DownloadProgress], None] | None = None,
    cancel: threading.Event | None = None,
    free_disk: Callable[[Path], int] = machine.free_disk,
    clock: Callable[[], float] = time.monotonic,
) -> DownloadResult:
    """Fetch ``entry`` into ``models`` (module docstring); the verified file's path."""
    models, cancel, t0 = Path(models), cancel or threading.Event(), clock()
    emit = progress or (lambda _p: None)
    final = target(entry, models)
    if final.is_file():
        size = final.stat().st_size
        emit(DownloadProgress(entry.id, "done", size, size))
        return DownloadResult(final, entry.sha256 or "", size, 0, 0, 0.0)
    staging = models / STAGING
    staging.mkdir(parents=True, exist_ok=True)
    part, meta_file = staging / (entry.file + ".part"), staging / (entry.file + ".part.json")

    from filelock import FileLock, Timeout  # a dependency of huggingface_hub

    try:
        lock = FileLock(str(staging / (entry.file + ".lock")), timeout=0)
        lock.acquire()
    except Timeout:
        raise DownloadError(f"{entry.file} is already being downloaded by another Keepsake") from None
    try:
        return _fetch(entry, models, part, meta_file, final, emit, cancel, free_disk, clock, t0)
    finally:
        lock.release()


def _fetch(entry, models, part, meta_file, final, emit, cancel, free_disk, clock, t0) -> DownloadResult:
    hub = endpoint()
    emit(DownloadProgress(entry.id, "connecting", 0, entry.size_bytes))
    meta = _metadata(entry, hub)
    sha = _expected_sha(entry, meta.etag)
    size = int(meta.size or entry.size_bytes)
    if _stale(meta_file, sha, size):
        _discard(part)
    have = part.stat().st_size if part.is_file() else 0
    if have > size:
        _discard(part)
        have = 0
    free = free_disk(models)
    if size - have + HEADROOM > free:
        _discard(part, meta_file)
        raise DiskFullError(f"not enough disk space for {entry.name}: it needs {gb(size - have)}, "
                            f"{gb(free)} free in {models}")  # fmt: skip
    meta_file.write_text(json.dumps({"sha256": sha, "size": size, "repo": entry.repo, "file": entry.file}))
    rate, last = _Rate(clock), [0.0]

    def report(done: int, force: bool) -> None:
        now = clock()
        if not force and now - last[0] < 0.2:
            return
        last[0] = now
        speed = rate.add(done - have)
        eta = (size - done) / speed if speed > 0 else None
        emit(DownloadProgress(entry.id, "downloading", done, size, speed, eta))

    file_download, utils = _hf()
    http_get, build_hf_headers = file_download.http_get, utils.build_hf_headers

    headers = build_hf_headers(token=False, library_name="keepsake")
    report(have, True)
    try:
        with open(part, "ab") as f:
            sink = _Sink(f, have, report, cancel)
            http_get(meta.location, sink, resume_size=have, headers=headers, expected_size=size,
                     displayed_filename=entry.file, tqdm_class=_silent_tqdm())  # fmt: skip
            f.flush()
            os.fsync(f.fileno())
    except DownloadCancelled:
        _discard(part, meta_file)
        raise
    except OSError as exc:
        if exc.errno in _FULL:
            _discard(part, meta_file)
            raise DiskFullError(f"the disk filled up while downloading {entry.name} ({gb(size)}): "
                                f"the partial file was removed; free some space in {models}") from None  # fmt: skip
        raise DownloadError(f"download of {entry.file} interrupted ({_one_line(exc)}); run it again to resume") from None
    except Exception as exc:  # noqa: BLE001 - the connection dropped: keep the part, resume later
        raise DownloadError(f"download of {entry.file} interrupted ({_one_line(exc)}); run it again to resume") from None
    report(size, True)
    emit(DownloadProgress(entry.id, "verifying", 0, size))
    def verifying(n: int) -> None:
        if n % (64 << 20) == 0:  # every 64 MiB (the hash reads 4 MiB at a time)
            emit(DownloadProgress(entry.id, "verifying", n, size))

    got = sha256_file(part, verifying, cancel)
    if got != sha:
        _discard(part, meta_file)
        raise VerifyError(f"{entry.file} failed its SHA-256 check (expected {sha[:12]}..., got {got[:12]}...): "
                          "the file was deleted")  # fmt: skip
    os.replace(part, final)
    _discard(meta_file)
    emit(DownloadProgress(entry.id, "done", size, size))
    return DownloadResult(final, sha, size, size - have, have, clock() - t0)


def _stale(meta_file: Path, sha: str, size: int) -> bool:
    """The partial file belongs to another version of the file (or its record is unreadable)."""
    try:
        saved = json.loads(meta_file.read_text())
    except (OSError, ValueError):
        return True
    return saved.get("sha256") != sha or saved.get("size") != size


def _silent_tqdm():
    """huggingface_hub's tqdm, always disabled: progress goes through our events instead."""
    _, utils = _hf()

    class Silent(utils.tqdm):
        def __init__(self, *args, **kwargs):
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

    return Silent
