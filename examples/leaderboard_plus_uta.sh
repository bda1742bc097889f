#!/usr/bin/env bash
# Add the uta tasks to an existing leaderboard run: ONE lm_eval invocation, one model
# load. lm-eval's own leaderboard_ifeval scores the model's answers; uta_ifeval runs the
# same kind of prompts through the user-turn probe, uta_ifeval_trunc adds the truncation
# control. The results JSON holds all three side by side.
#
#   MODEL=Qwen/Qwen3.5-2B OPENAI_API_KEY=... bash examples/leaderboard_plus_uta.sh
#
# Both IFEval data sets come from the Hugging Face Hub (leaderboard_ifeval:
# wis-k/instruction-following-eval, uta_ifeval: google/IFEval), so this needs Hub access
# (or a copy: --metadata ifeval_data_files=... for uta_ifeval). See _common.sh for the
# other settings (MODEL, LIMIT, OUT, judge).
set -euo pipefail
source "$(dirname "$0")/_common.sh"
META="$(judge_metadata)"

# --apply_chat_template is what the leaderboard tasks expect for chat models; the uta
# tasks always render with the model's own chat template, with or without it.
lm_eval run \
    --model vllm \
    --model_args "$VLLM_MODEL_ARGS" \
    --include_path "$UTA_TASKS_DIR" \
    --tasks leaderboard_ifeval,uta_ifeval,uta_ifeval_trunc \
    --apply_chat_template \
    --batch_size auto \
    "${LIMIT_ARGS[@]}" \
    --metadata "$META" \
    --log_samples \
    --output_path "$OUT"
