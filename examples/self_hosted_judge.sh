#!/usr/bin/env bash
# Use a self-hosted open judge instead of the OpenAI API: start `vllm serve` on
# 127.0.0.1, point the uta tasks at it with --metadata, stop it at the end.
#
#   JUDGE_MODEL=openai/gpt-oss-20b MODEL=Qwen/Qwen3.5-2B bash examples/self_hosted_judge.sh
#
# The judge must answer OpenAI chat completions with JSON-schema output, which vLLM
# serves for any chat model. Open judges have not been validated against the paper's
# gpt-5.4-mini (kappa 0.726 with humans): check agreement on a sample before trusting one.
#
# JUDGE_MODEL       HF id or directory of the judge (default openai/gpt-oss-20b)
# JUDGE_PORT        port on 127.0.0.1 (default 8011)
# JUDGE_SERVE_ARGS  more `vllm serve` flags, e.g. "--tensor-parallel-size 2"
# JUDGE_GPU_SHARE   GPU memory share of the judge when both share one GPU (default 0.45;
#                   the model under test gets the same share); with two GPUs, give each
#                   its own with CUDA_VISIBLE_DEVICES instead
# TASKS             default: the three IFBench tasks; other settings: _common.sh
set -euo pipefail
source "$(dirname "$0")/_common.sh"
export JUDGE_MODEL="${JUDGE_MODEL:-openai/gpt-oss-20b}"
JUDGE_PORT="${JUDGE_PORT:-8011}"
JUDGE_GPU_SHARE="${JUDGE_GPU_SHARE:-0.45}"
TASKS="${TASKS:-uta_ifbench,uta_ifbench_trunc,uta_ifbench_question}"
mkdir -p "$OUT"

# 1. The judge server, in its own process group so that everything it starts stops with it.
SERVE_ARGS=(--host 127.0.0.1 --port "$JUDGE_PORT" --served-model-name "$JUDGE_MODEL")
if [[ "$ON_GPU" == 1 ]]; then
    SERVE_ARGS+=(--gpu-memory-utilization "$JUDGE_GPU_SHARE")
    TESTED_ARGS="$VLLM_MODEL_ARGS,gpu_memory_utilization=$JUDGE_GPU_SHARE"
else
    SERVE_ARGS+=(--dtype bfloat16 --enforce-eager --max-model-len 8192)
    TESTED_ARGS="$VLLM_MODEL_ARGS"
fi
# shellcheck disable=SC2086  # JUDGE_SERVE_ARGS is a list of flags
setsid vllm serve "$JUDGE_MODEL" "${SERVE_ARGS[@]}" ${JUDGE_SERVE_ARGS:-} >"$OUT/judge-server.log" 2>&1 &
JUDGE_PID=$!
stop_judge() {  # Ctrl-C to the server's group, up to 15 s to exit, then SIGKILL
    kill -INT -- "-$JUDGE_PID" 2>/dev/null || return 0
    for _ in $(seq 30); do kill -0 -- "-$JUDGE_PID" 2>/dev/null || return 0; sleep 0.5; done
    kill -KILL -- "-$JUDGE_PID" 2>/dev/null || true
}
trap stop_judge EXIT

# 2. Wait until it answers (at most JUDGE_READY_TIMEOUT seconds, default 900).
echo "waiting for the judge on 127.0.0.1:$JUDGE_PORT (log: $OUT/judge-server.log)" >&2
deadline=$((SECONDS + ${JUDGE_READY_TIMEOUT:-900}))
until curl -sf "http://127.0.0.1:$JUDGE_PORT/health" >/dev/null; do
    kill -0 "$JUDGE_PID" 2>/dev/null || { tail -n 30 "$OUT/judge-server.log" >&2; echo "the judge server exited" >&2; exit 1; }
    (( SECONDS < deadline )) || { echo "the judge server was not ready in ${JUDGE_READY_TIMEOUT:-900} s" >&2; exit 1; }
    sleep 5
done

# 3. The evaluation. The judge settings go through --metadata (judge_base_url and
#    judge_model, the name the server answers to: the model id, recorded in the results).
lm_eval run \
    --model vllm \
    --model_args "$TESTED_ARGS" \
    --include_path "$UTA_TASKS_DIR" \
    --tasks "$TASKS" \
    --batch_size auto \
    "${LIMIT_ARGS[@]}" \
    --metadata "$(JUDGE_BASE_URL="http://127.0.0.1:$JUDGE_PORT/v1" judge_metadata)" \
    --log_samples \
    --output_path "$OUT"
