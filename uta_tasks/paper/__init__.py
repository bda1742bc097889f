"""The paper's published numbers as data, and the check that a run reproduces them."""
