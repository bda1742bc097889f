"""Metrics of the uta tasks: per-doc values from probe records, and their aggregations."""
