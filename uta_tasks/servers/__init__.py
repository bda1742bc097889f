"""The processes the package starts and supervises: vLLM, llama-server.

Above the library, below the commands (see ``.importlinter``).
"""
