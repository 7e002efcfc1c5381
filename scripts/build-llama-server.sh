#!/usr/bin/env bash
# Build llama.cpp's own OpenAI-compatible server, `llama-server`, from the llama.cpp that
# llama-cpp-python 0.3.36 vendors (the same code the embedded backend runs), once, into
# ${CAUSALQA_HOME:-~/.cache/causalqa}/bin/llama-server. It serves several requests at once
# (--parallel N slots, decoded in one batch): the loopback server of `causalqa bench scale`
# and of the tests that check concurrency against N slots. Optional: without it those use
# llama-cpp-python's one-request-at-a-time server, or skip.
#   bash scripts/build-llama-server.sh      (about 10 minutes on 2 cores; needs cmake, g++)
set -euo pipefail
cd "$(dirname "$0")/.."

home="${CAUSALQA_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/causalqa}"
bin="$home/bin/llama-server"
if [[ -x "$bin" ]]; then
    echo "==> $bin is built"
    exit 0
fi
python="${PYTHON:-.venv/bin/python}"
[[ -x "$python" ]] || python=python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "==> llama.cpp sources (the llama-cpp-python 0.3.36 sdist)"
"$python" -m pip --disable-pip-version-check download --quiet --no-deps --no-binary :all: \
    -d "$work" llama-cpp-python==0.3.36
tar -xzf "$work"/llama_cpp_python-0.3.36.tar.gz -C "$work"
src="$work/llama_cpp_python-0.3.36/vendor/llama.cpp"

# One static CPU backend with this CPU's vector extensions, AMX excepted (its kernels
# crashed on this project's Xeon VMs; see setup.sh): the server is a local tool, built
# on the machine that runs it.
flags=(-DGGML_NATIVE=OFF)
if [[ "$(uname -m)" == "x86_64" ]]; then
    cpu=$(grep -m1 '^flags' /proc/cpuinfo || true)
    has() { [[ " $cpu " == *" $1 "* ]]; }
    flags+=(-DGGML_AVX=ON -DGGML_F16C=ON)
    has fma && flags+=(-DGGML_FMA=ON)
    has avx2 && flags+=(-DGGML_AVX2=ON -DGGML_BMI2=ON)
    has avx_vnni && flags+=(-DGGML_AVX_VNNI=ON)
    if has avx512f && has avx512bw && has avx512vl; then
        flags+=(-DGGML_AVX512=ON)
        has avx512_vnni && flags+=(-DGGML_AVX512_VNNI=ON)
        has avx512_bf16 && flags+=(-DGGML_AVX512_BF16=ON)
        has avx512_vbmi && flags+=(-DGGML_AVX512_VBMI=ON)
    fi
else
    flags=(-DGGML_NATIVE=ON)
fi

echo "==> compiling llama-server (about 10 minutes on 2 cores)"
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF "${flags[@]}" >"$work/cmake.log" 2>&1 ||
    { tail -30 "$work/cmake.log"; exit 1; }
nice -n 10 cmake --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; exit 1; }
mkdir -p "$(dirname "$bin")"
cp "$work/build/bin/llama-server" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "==> ready: $bin"
