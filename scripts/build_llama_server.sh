#!/usr/bin/env bash
# Build llama.cpp's `llama-server` from the source vendored in the llama-cpp-python
# sdist on PyPI, and install it into a cache directory. Prints the binary's path.
#
# Nothing but the sdist is downloaded: the web UI (prebuilt or built) is off,
# OpenSSL and curl are off. About 4.5 minutes on 2 cores.
#
# Idempotent: when the installed binary's stamp (sdist version, build flags, CPU
# flags of this machine) matches, it only prints the path.
#
# Environment:
#   UTA_TOOLS_DIR          install directory (default: ${XDG_CACHE_HOME:-$HOME/.cache}/uta-tasks/tools)
#   UTA_LLAMA_CPP_VERSION  llama-cpp-python sdist version (default: 0.3.36)
#   PYTHON                 python whose pip downloads the sdist (default: python3)
#   JOBS                   parallel build jobs (default: nproc)
set -euo pipefail

VERSION="${UTA_LLAMA_CPP_VERSION:-0.3.36}"
TOOLS_DIR="${UTA_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/uta-tasks/tools}"
PYTHON="${PYTHON:-python3}"
JOBS="${JOBS:-$(nproc)}"
BIN="$TOOLS_DIR/llama-server"
STAMP="$TOOLS_DIR/llama-server.stamp"

CMAKE_FLAGS=(
    -DCMAKE_BUILD_TYPE=Release
    -DBUILD_SHARED_LIBS=OFF
    -DLLAMA_USE_PREBUILT_UI=OFF
    -DLLAMA_BUILD_UI=OFF
    -DLLAMA_OPENSSL=OFF
    -DLLAMA_CURL=OFF
    -DLLAMA_BUILD_TESTS=OFF
    -DLLAMA_BUILD_EXAMPLES=OFF
    # Portable x86-64 AVX2 instead of -march=native: on CPUs with AMX (Sapphire Rapids and
    # later) the native build's AMX kernels crash the server while loading the model
    # (SIGSEGV after "llama threadpool init"), seen on this project's machines.
    -DGGML_NATIVE=OFF
    -DGGML_AVX=ON
    -DGGML_AVX2=ON
    -DGGML_FMA=ON
    -DGGML_F16C=ON
)

cpu_flags() {
    grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | md5sum | cut -d' ' -f1
}

want_stamp="llama-cpp-python=$VERSION flags=${CMAKE_FLAGS[*]} cpu=$(cpu_flags)"

if [[ -x "$BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$want_stamp" ]]; then
    echo "$BIN"
    exit 0
fi

for tool in cmake c++ "$PYTHON"; do
    command -v "$tool" >/dev/null || { echo "build_llama_server.sh: '$tool' not found" >&2; exit 1; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/uta-llama-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "Downloading llama-cpp-python==$VERSION sdist" >&2
"$PYTHON" -m pip download --quiet --no-binary llama-cpp-python --no-deps \
    "llama-cpp-python==$VERSION" -d "$work" >&2
tar -xzf "$work"/llama_cpp_python-"$VERSION".tar.gz -C "$work"
src="$work/llama_cpp_python-$VERSION/vendor/llama.cpp"
[[ -f "$src/CMakeLists.txt" ]] || { echo "build_llama_server.sh: no vendored llama.cpp in the sdist" >&2; exit 1; }

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

start=$(date +%s)
echo "Configuring llama.cpp (${CMAKE_FLAGS[*]})" >&2
cmake -S "$src" -B "$work/build" "${generator[@]}" "${CMAKE_FLAGS[@]}" >&2
echo "Building llama-server with $JOBS jobs" >&2
cmake --build "$work/build" --target llama-server -j "$JOBS" >&2
echo "Built in $(( $(date +%s) - start )) s" >&2

mkdir -p "$TOOLS_DIR"
install -m 0755 "$work/build/bin/llama-server" "$BIN.tmp"
mv -f "$BIN.tmp" "$BIN"
printf '%s' "$want_stamp" > "$STAMP"
echo "$BIN"
