#!/usr/bin/env bash
# Print the path of a portable llama-cpp-python wheel, building it once per machine if needed.
#
#   PYTHON=.venv/bin/python bash packaging/llama_wheel.sh      -> /root/.cache/keepsake-build/...whl
#
# One wheel serves both the development venv (`make run`, `make test`) and the desktop bundle
# (`make package`), so a fresh machine compiles llama.cpp once, not twice.
#
# Why not pip's own build: pip compiles with -march=native, so a wheel from the pip cache may use
# this machine's newest instructions (AVX-512 here) and die with SIGILL elsewhere, and tests would
# run a different llama.cpp than the one the bundle ships. GGML_NATIVE=OFF enables
# SSE4.2/AVX/AVX2/FMA/F16C/BMI2 (x86-64-v3: Intel Haswell, AMD Zen and newer), no AVX-512.
#
# The cache lives outside the checkout (a clean clone or `make clean` keeps it):
#   ${KEEPSAKE_WHEEL_CACHE:-${XDG_CACHE_HOME:-~/.cache}/keepsake-build/wheels}/<key>/
# where <key> is a hash of the llama-cpp-python requirement (from pyproject.toml), the CMake
# flags, the Python version and the machine. A key that changes builds a new wheel next to the
# old ones. Builds are serialised with flock, so two `make`s never compile it twice at once.
# Progress goes to stderr; stdout is only the wheel's path.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
CMAKE_FLAGS="${KEEPSAKE_LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF}"
CACHE="${KEEPSAKE_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/keepsake-build/wheels}"

REQ="$("$PYTHON" - "$REPO/pyproject.toml" <<'EOF'
import sys, tomllib
deps = tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]
print(next(d for d in deps if d.lower().startswith("llama-cpp-python")))
EOF
)"
KEY_TEXT="$REQ | $CMAKE_FLAGS | $("$PYTHON" -c 'import sys;print(sys.implementation.cache_tag)') | $(uname -m)"
KEY="$(printf '%s' "$KEY_TEXT" | sha256sum | cut -c1-16)"
DIR="$CACHE/$KEY"
mkdir -p "$DIR"

exec 9>"$DIR/.lock"
flock 9
wheel="$(ls "$DIR"/llama_cpp_python-*.whl 2>/dev/null | head -n 1 || true)"
if [ -z "$wheel" ]; then
    echo "llama-cpp-python: building a portable wheel ($REQ, $CMAKE_FLAGS) into $DIR" >&2
    echo "  once per machine: about 7-10 minutes on 2 cores" >&2
    t0=$(date +%s)
    tmp="$(mktemp -d "$DIR/build.XXXXXX")"
    if ! CMAKE_ARGS="$CMAKE_FLAGS" "$PYTHON" -m pip wheel --quiet --no-deps --no-cache-dir -w "$tmp" "$REQ" >&2; then
        rm -rf "$tmp"
        echo "llama-cpp-python: the build failed (a C/C++ compiler and CMake are needed)" >&2
        exit 1
    fi
    built="$(ls "$tmp"/llama_cpp_python-*.whl | head -n 1)"
    mv "$built" "$DIR/"            # same file system: the wheel appears whole or not at all
    rm -rf "$tmp"
    printf '%s\n' "$KEY_TEXT" > "$DIR/KEY.txt"
    wheel="$DIR/$(basename "$built")"
    echo "llama-cpp-python: built in $(( $(date +%s) - t0 )) s" >&2
fi
printf '%s\n' "$wheel"
