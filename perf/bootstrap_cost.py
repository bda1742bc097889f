"""What a rate row's standard error costs in lm-eval: its bootstrap (``nanmean``, the
aggregation lm-eval resamples) against the closed form it uses for ``mean`` (what the uta
tasks hand it: a rate's NaN never reaches lm-eval, so ``mean`` is the rate over the docs
that have one). Both run here, in this process, on the same per-doc values.

Prints seconds per row and the ratio for each N, and the two standard errors (they agree
to the bootstrap's noise)::

    PYTHONPATH=$PWD python perf/bootstrap_cost.py                # N = 3, 300, 1319; 100,000 draws
    PYTHONPATH=$PWD python perf/bootstrap_cost.py --n 1319 --iters 10000
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import random
import time


def per_doc_values(n: int, seed: int = 0) -> list[float]:
    """A rate's per-doc values: 0 or 1, NaN on one doc in five (no judged turn).

    Args:
        n: number of docs.
        seed: the generator's seed.
    """
    rng = random.Random(seed)
    return [math.nan if rng.random() < 0.2 else float(rng.random() < 0.6) for _ in range(n)]


def main() -> None:
    from lm_eval.api.metrics import mean, nanmean, stderr_for_metric

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="*", default=[3, 300, 1319], help="docs per row")
    parser.add_argument("--iters", type=int, default=100000, help="lm-eval's --bootstrap_iters (its default)")
    args = parser.parse_args()
    print("| N | bootstrap of nanmean (s) | closed form of mean (s) | ratio | SE bootstrap | SE closed form |")
    print("|---|---|---|---|---|---|")
    for n in args.n:
        values = per_doc_values(n)
        present = [v for v in values if not math.isnan(v)]
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            boot = stderr_for_metric(nanmean, args.iters)(values)  # type: ignore[misc]
        booted = time.perf_counter() - start
        start = time.perf_counter()
        closed = stderr_for_metric(mean, args.iters)(present)  # type: ignore[misc]
        closed_time = time.perf_counter() - start
        ratio = booted / closed_time if closed_time else math.inf
        print(f"| {n} | {booted:.2f} | {closed_time:.6f} | {ratio:,.0f}x | {boot:.4f} | {closed:.4f} |")


if __name__ == "__main__":
    main()
