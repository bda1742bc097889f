"""Task YAML files for lm-eval (pass this folder to --include_path) and their generator."""
