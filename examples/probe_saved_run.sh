#!/usr/bin/env bash
# Add the probe to a run you already have: the user turns and verdicts of uta:gsm8k from the
# answers a plain lm-eval gsm8k run saved with --log_samples, without generating one answer again.
#
#   MODEL=Qwen/Qwen3.5-2B OPENAI_API_KEY=... bash examples/probe_saved_run.sh
#
# Step 1 is the run a leaderboard or a release pipeline already makes (chat template applied,
# samples logged); step 2 is the probe on its answers. The probe generates only the user
# turns, plus the rest of any answer lm-eval cut at one of gsm8k's stop strings
# ("Question:", "</s>"). Measured with perf/probe_from_samples.py on 6 documents (see
# docs/saved-runs.md): tokens generated from samples / full run 0.004 (scripted reasoning
# model, whole turns saved), 0.994 (every saved answer cut at a stop string near its start),
# 0.346 for SmolLM2-135M-Instruct on 3 gsm8k documents (wall time 0.575).
#
# gsm8k's data comes from the Hugging Face Hub (openai/gsm8k). See _common.sh for the other
# settings (MODEL, LIMIT, OUT, judge).
set -euo pipefail
source "$(dirname "$0")/_common.sh"
META="$(judge_metadata)"
SAVED="$OUT/saved"

# 1. The run you already have. The probe is zero-shot by default (uta_num_fewshot 0), so the
#    saved prompt must be too; a 5-shot run is read with --metadata uta_num_fewshot=5.
lm_eval run \
    --model vllm \
    --model_args "$VLLM_MODEL_ARGS" \
    --tasks gsm8k \
    --num_fewshot 0 \
    --apply_chat_template \
    --batch_size auto \
    "${LIMIT_ARGS[@]}" \
    --log_samples \
    --output_path "$SAVED"

# 2. The probe on its answers: same model, same temperature, same documents (--limit).
#    Every refusal (no samples, another model or temperature, another prompt) names the fix.
uta-eval run \
    --model vllm \
    --model_args "$VLLM_MODEL_ARGS" \
    --tasks uta:gsm8k \
    --batch_size auto \
    "${LIMIT_ARGS[@]}" \
    --metadata "${META%\}}, \"answers_from\": \"$SAVED\"}" \
    --log_samples \
    --output_path "$OUT/probe"
