"""Print one real pass-2 prompt per family and mode (trace / template), middle shortened,
for docs/parity.md. It runs the probe's own code (uta_tasks.probe.turns) on the chat
templates shipped in tests/fixtures/chat_templates with SmolLM2's tokenizer, and a scripted
pass-1 answer per family (reasoning included, as each family generates it).

    PYTHONPATH=$PWD python scripts/pass2_examples.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "pipeline"))

from scripted_lm import load_tokenizer  # noqa: E402

from uta_tasks.probe import role_switch, turns  # noqa: E402
from uta_tasks.probe.records import ProbeSpec  # noqa: E402

Q = "Natalia sold 48 clips in April and half as many in May. How many clips did she sell in all?"
REASONING = "April: 48. May: half of 48 is 24. Total 48 + 24 = 72."
FINAL = "She sold 48 + 24 = 72 clips.\n\nThe answer is 72."
ANSWERS = {
    "Qwen3-style <think> (qwen_think)": ("qwen_think", f"<think>\n{REASONING}\n</think>\n\n{FINAL}"),
    "gpt-oss harmony (harmony)": ("harmony", f"<|channel|>analysis<|message|>{REASONING}<|end|><|start|>assistant"
                                             f"<|channel|>final<|message|>{FINAL}<|return|>"),
    "GLM-4.5 style (glm)": ("glm", f"{REASONING}</think>\n{FINAL}"),
    "plain ChatML (SmolLM2's own template)": (None, FINAL),
}
HEAD, TAIL = 100, 240


def shorten(text: str) -> str:
    """The start and the end (the join) of a prompt, the middle replaced by a marker."""
    if len(text) <= HEAD + TAIL + 40:
        return text
    return f"{text[:HEAD]}[... {len(text) - HEAD - TAIL} characters ...]{text[-TAIL:]}"


def main() -> None:
    for title, (template, answer) in ANSWERS.items():
        tokenizer = load_tokenizer(template=template)
        switch = role_switch.build(tokenizer)
        messages = [{"role": "user", "content": Q}]
        pass1 = switch.assistant_prompt(messages)
        print(f"### {title}\n")
        for mode in ("trace", "template"):
            spec = ProbeSpec(task="uta_gsm8k", benchmark="gsm8k", perturbation="none", messages=messages,
                             pass2_context=mode)
            shown = turns.build(spec, switch, answer, pass1, tokenizer)
            join = f" (join: `{shown.join.text!r}`)" if shown.join else ""
            print(f"`{mode}`{join}:\n\n```text\n{shorten(shown.pass2_prompt)}\n```\n")


if __name__ == "__main__":
    main()
