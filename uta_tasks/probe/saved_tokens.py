"""A saved prompt logged as token ids, decoded with the model's tokenizer (``answers_from`` a
lighteval details file).

lighteval 0.13's transformers backend logs no prompt text: ``model_response.input_tokens`` holds
the ids it sent. With ``batch_size`` above 1 it pads each batch on the left to its longest prompt
(its tokenizer's pad token, which it sets to the end-of-sequence token) and logs every row whole,
padding included, with how many ids are padding in ``padded_tokens_count``. The prompt the model
saw is the rest: the padding is left out, once the ids the count names are checked to be the pad
token, and a count the ids disagree with is refused rather than guessed around.
"""

from __future__ import annotations

from typing import Any

from uta_tasks.schema.probe import SavedAnswer


class SavedTokensError(ValueError):
    """The logged padding cannot be told from the prompt; the message names the task, the file,
    the document and the fix."""


def _pad_ids(tokenizer: Any) -> set[int]:
    """The ids a harness pads with: the tokenizer's pad token, and its end-of-sequence token
    (which lighteval makes the pad token)."""
    return {i for i in (tokenizer.pad_token_id, tokenizer.eos_token_id) if isinstance(i, int)}


def decode(task: str, saved: SavedAnswer, tokenizer: Any) -> str:
    """The prompt as sent, without the batch's padding: ``saved.prompt_tokens`` after its
    ``padded_tokens`` leading pad ids, decoded with special tokens kept.

    Args:
        task: the probe task (for messages).
        saved: the saved answer (``prompt_tokens`` set).
        tokenizer: the model's tokenizer.

    Raises:
        SavedTokensError: the ids the count names are not all the pad token, the count is longer
            than the prompt, or the prompt still starts with the pad token after them (the count
            says less padding than the ids hold, or the log records no count).
    """
    tokens = list(saved.prompt_tokens or [])
    count = saved.padded_tokens
    pads = _pad_ids(tokenizer)
    shown = {i: tokenizer.convert_ids_to_tokens(i) for i in sorted(pads)}
    path, name = str(saved.source.get("path")), str(saved.source.get("samples"))
    where = f"{task}: document {saved.doc_id} of the lighteval details {path if path.endswith(name) else f'{path} ({name})'}"
    fix = ("check that --model_args names the model (and tokenizer) lighteval ran, or save the details again with "
           "batch_size=1, which pads nothing")
    if count is not None and count > len(tokens):
        raise SavedTokensError(f"{where}: padded_tokens_count is {count}, more than the {len(tokens)} input_tokens "
                               f"logged; {fix}")
    skip = count or 0
    odd = next((i for i, token in enumerate(tokens[:skip]) if token not in pads), None)
    if odd is not None:
        raise SavedTokensError(
            f"{where}: lighteval recorded {count} tokens of left padding (padded_tokens_count), but input_tokens[{odd}] "
            f"is id {tokens[odd]} ({tokenizer.convert_ids_to_tokens(tokens[odd])!r}), not the tokenizer's pad token "
            f"{shown}; {fix}")
    first = tokens[skip] if skip < len(tokens) else None
    if first in pads and first != tokenizer.bos_token_id:
        said = "records no padded_tokens_count" if count is None else f"records {count} tokens of padding"
        raise SavedTokensError(
            f"{where}: the log {said}, but input_tokens[{skip}] is the pad token too ({shown}): how much of the "
            f"prompt is padding cannot be told; {fix}")
    return str(tokenizer.decode(tokens[skip:], skip_special_tokens=False, clean_up_tokenization_spaces=False))
