"""The paper's pass 2 (pass2_context: trace): the join read from each family's own template,
checked on real template strings (tests/fixtures/chat_templates) and, for harmony, against
openai-harmony's own renderer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from uta_tasks.probe import role_switch, trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))
from scripted_lm import load_tokenizer  # noqa: E402

Q = "What is 2+2?"
MESSAGES = [{"role": "user", "content": Q}]

# family template -> (marker, header) as the real template writes them (SmolLM2's
# tokenizer supplies bos/eos: "<|im_start|>", "<|im_end|>").
JOINS = {
    None: ("<|im_end|>\n", "<|im_start|>user\n"),  # SmolLM2's own ChatML template
    "qwen_think": ("<|im_end|>\n", "<|im_start|>user\n"),
    "llama3": ("<|eot_id|>", "<|start_header_id|>user<|end_header_id|>\n\n"),
    "gemma": ("<end_of_turn>\n", "<start_of_turn>user\n"),
    "phi3": ("<|end|>\n", "<|user|>\n"),
    "mistral": ("<|im_end|>", "[INST] "),  # the template writes eos_token after an assistant turn
    "harmony": ("<|end|>", "<|start|>user<|message|>"),
    "glm": ("", "<|user|>\n"),  # GLM has no end-of-turn marker: the next role token ends a turn
}


@pytest.mark.parametrize("family", list(JOINS), ids=[str(f) for f in JOINS])
def test_join_is_read_from_each_familys_own_template(family):
    tokenizer = load_tokenizer(template=family)
    switch = role_switch.build(tokenizer)
    join = trace.derive(tokenizer, {}, switch.stop)
    assert (join.marker, join.header) == JOINS[family]
    # The join is exactly what the template writes between an assistant turn and a user turn.
    rendered = switch.own_template_prompt(MESSAGES, "ANSWER")
    assert rendered.endswith("ANSWER" + join.text)


def test_phi3_is_not_mistaken_for_glm_and_its_user_turn_stops_at_end():
    phi3 = load_tokenizer(template="phi3")
    assert role_switch.detect(phi3) == "sentinel" and role_switch.build(phi3).stop == ("<|end|>",)
    assert role_switch.detect(load_tokenizer(template="glm")) == "glm4"


@pytest.mark.parametrize(("generation", "body"), [
    ("<think>\nx\n</think>\n\n42", "<think>\nx\n</think>\n\n42"),  # nothing to remove
    ("42<|im_end|>", "42"),  # a backend that keeps the stop token: the join writes it once
])
def test_body_removes_one_trailing_end_of_generation(generation, body):
    join = trace.derive(load_tokenizer(template="qwen_think"), {}, ("<|im_end|>",))
    assert join.body(generation) == body
    assert join.prompt("P", join.body(generation)).count("<|im_end|>") == 1


def test_harmony_return_becomes_end_as_its_template_writes_history():
    tokenizer = load_tokenizer(template="harmony")
    switch = role_switch.build(tokenizer)
    join = trace.derive(tokenizer, {}, switch.stop)
    generated = "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>Four.<|return|>"
    assert join.body(generated).endswith("final<|message|>Four.")
    assert join.prompt("P", join.body(generated)).endswith("Four.<|end|><|start|>user<|message|>")


def test_harmony_trace_equals_openai_harmony_rendering_of_the_kept_trace(harmony_encoding):
    """The trace with the analysis channel kept is what openai-harmony renders for that
    conversation, followed by the user header (harmony's own renderer writes `<|message|>`
    after a user role with no channel)."""
    h, enc = harmony_encoding
    tokenizer = load_tokenizer(template="harmony")
    switch = role_switch.build(tokenizer)
    join = trace.derive(tokenizer, {}, switch.stop)
    pass1 = switch.assistant_prompt(MESSAGES)
    generated = "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>Four.<|return|>"
    system = h.SystemContent.new().with_conversation_start_date("2025-08-05")
    msgs = [
        h.Message.from_role_and_content(h.Role.SYSTEM, system),
        h.Message.from_role_and_content(h.Role.USER, Q),
    ]
    assert enc.decode_utf8(enc.render_conversation_for_completion(h.Conversation.from_messages(msgs),
                                                                  h.Role.ASSISTANT)) == pass1
    msgs += [
        h.Message.from_role_and_content(h.Role.ASSISTANT, "think").with_channel("analysis"),
        h.Message.from_role_and_content(h.Role.ASSISTANT, "Four.").with_channel("final"),
    ]
    kept = h.RenderConversationConfig(auto_drop_analysis=False)
    tokens = enc.render_conversation_for_completion(h.Conversation.from_messages(msgs), h.Role.USER, kept)
    assert join.prompt(pass1, join.body(generated)) == enc.decode_utf8(tokens) + "<|message|>"


def test_a_template_that_renders_no_user_after_assistant_names_the_fix():
    tokenizer = load_tokenizer()
    tokenizer.chat_template = "{% for m in messages %}{% if m.role == 'user' %}{{ m.content }}{% endif %}{% endfor %}"
    with pytest.raises(trace.TraceError, match="pass2_context"):
        trace.derive(tokenizer, {}, ())
