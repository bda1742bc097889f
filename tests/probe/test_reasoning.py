from uta_tasks.probe.reasoning import split


def test_think_tags_are_removed_from_the_final_answer():
    out = split("<think>\nLet me add.\n</think>\n\nThe answer is 4.")
    assert out.final == "The answer is 4." and out.reasoning == "Let me add." and out.form == "think"


def test_opening_tag_in_the_prompt_only():
    assert split("I should add 2 and 2.\n</think>\nIt is 4.").final == "It is 4."


def test_harmony_channels_with_and_without_special_tokens():
    raw = "<|channel|>analysis<|message|>Add them.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>"
    assert split(raw).final == "4" and split(raw).form == "harmony"
    assert split("analysisAdd them.assistantfinal4").final == "4"


def test_plain_answers_are_untouched():
    out = split("Just 4.")
    assert out.final == "Just 4." and out.reasoning == "" and out.form == "plain"
