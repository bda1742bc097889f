"""Golden tests of the pass-2 prompt: the model's own rendering of [q, a'] + the user header."""

from __future__ import annotations

import copy

import pytest

from uta_tasks.probe import role_switch

Q, A = "What is 2+2?", "2+2 equals 4."
HISTORY = [{"role": "user", "content": Q}]

LLAMA3_TEMPLATE = (
    "{{- bos_token }}{% for message in messages %}"
    "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
)
# Markers only: the explicit templates do the rendering; detection reads these.
HARMONY_MARKERS = "{% for m in messages %}<|start|>{{ m.role }}<|channel|>final<|message|>{{ m.content }}<|end|>{% endfor %}"
GLM_MARKERS = "[gMASK]<sop>{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"


def _with_template(tokenizer, template):
    tok = copy.deepcopy(tokenizer)
    tok.chat_template = template
    return tok


def test_smollm2_chatml_from_its_own_template(smollm2_tokenizer):
    rs = role_switch.build(smollm2_tokenizer)
    assert rs.name == "sentinel" and rs.stop == ("<|im_end|>",) and rs.history == "raw"
    system = "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
    assert rs.assistant_prompt(HISTORY) == f"{system}<|im_start|>user\n{Q}<|im_end|>\n<|im_start|>assistant\n"
    assert rs.user_prompt(HISTORY, A) == (
        f"{system}<|im_start|>user\n{Q}<|im_end|>\n<|im_start|>assistant\n{A}<|im_end|>\n<|im_start|>user\n"
    )


def test_llama3_style_template(smollm2_tokenizer):
    tok = _with_template(smollm2_tokenizer, LLAMA3_TEMPLATE)
    rs = role_switch.build(tok)
    bos = tok.bos_token
    assert rs.name == "sentinel" and rs.stop == ("<|eot_id|>",)
    assert rs.user_prompt(HISTORY, A) == (
        f"{bos}<|start_header_id|>user<|end_header_id|>\n\n{Q}<|eot_id|>"
        f"<|start_header_id|>assistant<|end_header_id|>\n\n{A}<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\n"
    )


def test_harmony_matches_openai_harmony_renderer(smollm2_tokenizer, harmony_encoding):
    h, enc = harmony_encoding
    tok = _with_template(smollm2_tokenizer, HARMONY_MARKERS)
    rs = role_switch.build(tok)
    assert rs.name == "harmony" and rs.history == "final" and "<|end|>" in rs.stop
    for system in (None, "Answer briefly."):
        msgs = [h.Message.from_role_and_content(h.Role.SYSTEM, h.SystemContent.new())]
        ours = list(HISTORY)
        if system:
            msgs.append(h.Message.from_role_and_content(h.Role.DEVELOPER, h.DeveloperContent.new().with_instructions(system)))
            ours = [{"role": "system", "content": system}, *HISTORY]
        msgs += [
            h.Message.from_role_and_content(h.Role.USER, Q),
            h.Message.from_role_and_content(h.Role.ASSISTANT, A).with_channel("final"),
        ]
        tokens = enc.render_conversation_for_completion(h.Conversation.from_messages(msgs), h.Role.USER)
        expected = enc.decode_utf8(tokens) + "<|message|>"
        assert rs.user_prompt(ours, A) == expected


def test_glm_explicit_template(smollm2_tokenizer):
    rs = role_switch.build(_with_template(smollm2_tokenizer, GLM_MARKERS))
    assert rs.name == "glm4" and "<|assistant|>" in rs.stop and "<|observation|>" in rs.stop
    assert rs.user_prompt([{"role": "system", "content": "Be brief."}, *HISTORY], "  4  ") == (
        "[gMASK]<sop><|system|>\nBe brief.<|user|>\n" + Q + "<|assistant|>\n<think></think>\n4<|user|>\n"
    )


def test_forcing_a_template_overrides_detection(smollm2_tokenizer):
    assert role_switch.build(smollm2_tokenizer, "glm4").name == "glm4"
    with pytest.raises(role_switch.RoleSwitchError, match="role_switch"):
        role_switch.build(smollm2_tokenizer, "chatml")


def test_model_without_chat_template_fails_clearly(smollm2_tokenizer):
    tok = _with_template(smollm2_tokenizer, None)
    with pytest.raises(role_switch.RoleSwitchError, match="no chat template"):
        role_switch.build(tok)
