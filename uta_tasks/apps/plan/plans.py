"""What a plan holds: per benchmark its counts, the run's plan, the judge's price and the lengths
assumed for an estimate (:mod:`uta_tasks.apps.plan.counts` makes it, :mod:`.command` prints it)."""

from __future__ import annotations

from dataclasses import dataclass

from uta_tasks.apps.plan.built import SavedPlan
from uta_tasks.apps.plan.documents import Documents, PlanError
from uta_tasks.judge.prompt import estimated_tokens

# The OpenAI Batch API's price against live calls. Source: OpenAI Help Center, "Batch API FAQ"
# (https://help.openai.com/en/articles/9197833-batch-api-faq): "Each model will be offered at
# 50% cost discount vs. the synchronous APIs". Read 2026-12-01. Pass another with --plan_batch_discount.
BATCH_DISCOUNT = 0.5


@dataclass(frozen=True)
class Price:
    """A judge's price in US dollars per million tokens.

    Attributes:
        input_per_m: input (prompt) tokens.
        output_per_m: output tokens (reasoning included).
        batch_discount: the Batch API's discount (0.5: half price).
    """

    input_per_m: float
    output_per_m: float
    batch_discount: float = BATCH_DISCOUNT

    @classmethod
    def parse(cls, text: str | None, discount: float) -> Price | None:
        """``--plan_price IN,OUT`` and ``--plan_batch_discount`` as the commands take them (None: no price).

        Raises:
            PlanError: not two numbers, or a discount outside [0, 1); the message names the flag.
        """
        if text is None:
            return None
        try:
            given, out = (float(x) for x in text.split(","))
        except ValueError:
            raise PlanError(f"--plan_price must be two numbers IN,OUT (dollars per million tokens), got {text!r}") from None
        if not 0 <= discount < 1:
            raise PlanError(f"--plan_batch_discount must be in [0, 1), got {discount}")
        return cls(given, out, discount)

    def cost(self, input_tokens: int, output_tokens: int, batch: bool = False) -> float:
        """Dollars for these tokens, live or through the Batch API."""
        live = (input_tokens * self.input_per_m + output_tokens * self.output_per_m) / 1e6
        return live * (1 - self.batch_discount) if batch else live


@dataclass(frozen=True)
class Assumed:
    """Lengths the plan cannot know before the run (None: give bounds only).

    Attributes:
        answer_tokens: tokens of the final answer the judge reads (reasoning removed).
        user_tokens: tokens of a generated user turn.
        reply_tokens: tokens of the judge's reply (reasoning included).
    """

    answer_tokens: int | None = None
    user_tokens: int | None = None
    reply_tokens: int | None = None


@dataclass(frozen=True)
class BenchmarkPlan:
    """The counts of one benchmark's tasks in the run.

    Attributes:
        benchmark: its key.
        tasks: the run's tasks of this benchmark.
        docs: its documents.
        pass1: answers generated.
        pass2: user turns generated.
        judge_calls: distinct judge items (0 with the judge off).
        judged_answers: judge items whose context holds a generated answer.
        judged_user_turns: judge items whose user turn is generated.
        input_chars: characters of the judge prompts with the unknown texts empty.
    """

    benchmark: str
    tasks: tuple[str, ...]
    docs: Documents
    pass1: int
    pass2: int
    judge_calls: int
    judged_answers: int
    judged_user_turns: int
    input_chars: int


@dataclass(frozen=True)
class Plan:
    """The plan of one run.

    Attributes:
        benchmarks: per benchmark, its counts.
        skipped: asked-for tasks that are not uta tasks (not planned).
        greedy: whether the run decodes greedily.
        repeats: lm-eval ``repeats`` of the uta tasks.
        user_samples: the ``user_samples`` setting.
        max_gen_toks: the answer budget.
        user_max_gen_toks: the user-turn budget.
        judged: whether the judge runs.
        judge_model: its model.
        judge_prompt: its prompt version.
        judge_max_tokens: its reply budget.
        answers_from: the ``answers_from`` setting: pass 1 reads that saved run (0 answers
            generated), or None.
        saved: what pass 1 does with the saved answers (:mod:`uta_tasks.apps.plan.built`), or None.
    """

    benchmarks: tuple[BenchmarkPlan, ...]
    skipped: tuple[str, ...]
    greedy: bool
    repeats: int
    user_samples: int
    max_gen_toks: int
    user_max_gen_toks: int
    judged: bool
    judge_model: str
    judge_prompt: str
    judge_max_tokens: int
    answers_from: str | None = None
    saved: SavedPlan | None = None

    @property
    def pass1(self) -> int:
        return sum(b.pass1 for b in self.benchmarks)

    @property
    def pass2(self) -> int:
        return sum(b.pass2 for b in self.benchmarks)

    @property
    def judge_calls(self) -> int:
        return sum(b.judge_calls for b in self.benchmarks)

    @property
    def contacts(self) -> tuple[str, ...]:
        """What reading the documents may contact over the network, each once, as phrases
        (``the Hugging Face Hub (openai/gsm8k, google/IFEval)``)."""
        details: dict[str, list[str]] = {}
        for b in self.benchmarks:
            for what, detail in b.docs.contacts:
                seen = details.setdefault(what, [])
                if detail and detail not in seen:
                    seen.append(detail)
        return tuple(f"{what} ({', '.join(d)})" if d else what for what, d in details.items())

    def input_tokens(self, answer_tokens: int, user_tokens: int) -> int:
        """Judge input tokens with answers and user turns of these lengths."""
        fixed = sum(b.input_chars for b in self.benchmarks) if self.judged else 0
        unknown = sum(b.judged_answers * answer_tokens + b.judged_user_turns * user_tokens for b in self.benchmarks)
        return estimated_tokens(fixed) + (unknown if self.judged else 0)
