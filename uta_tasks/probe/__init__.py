"""The two-pass probe: role switch, perturbations, batched backend calls, the lm-eval hook."""
