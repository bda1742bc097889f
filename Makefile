# uta-tasks: the two commands of the README, and their parts.
#
#   make quickstart   fresh CPU machine -> SmolLM2 through lm_eval --model vllm on 3 IFBench tasks
#   make test         the whole test suite (what CI runs)
#
# The environment lives in $(VENV) (default .venv); scripts/setup_env.sh creates it and
# is a no-op when nothing changed. Variables: VENV, PYTHON (python3.11),
# PYTEST_ARGS, QUICKSTART_ARGS (e.g. QUICKSTART_ARGS="--limit 5").

VENV ?= .venv
PYTHON ?= python3.11
PYTEST_ARGS ?=
QUICKSTART_ARGS ?=

VPY := $(VENV)/bin/python
SETUP := UTA_VENV=$(VENV) PYTHON=$(PYTHON) bash scripts/setup_env.sh

.PHONY: help setup setup-packages test test-fast test-install quickstart wheel clean distclean

help:
	@echo "make quickstart    run SmolLM2 on uta_ifbench{,_trunc,_question} with a judge (local unless OPENAI_API_KEY)"
	@echo "make test          set everything up, then run the whole pytest suite"
	@echo "make test-fast     only the tests not marked slow (no model, no server)"
	@echo "make test-install  build the wheel and test it in a fresh venv"
	@echo "make setup         create/update $(VENV), build llama-server, prepare the model"
	@echo "make wheel         build dist/uta_tasks-*.whl"

setup:
	$(SETUP) packages llama model

setup-packages:
	$(SETUP) packages

test: setup
	$(VPY) -m pytest $(PYTEST_ARGS)

test-fast: setup-packages
	$(VPY) -m pytest -m "not slow" $(PYTEST_ARGS)

test-install: setup-packages
	$(VPY) -m pytest tests/install $(PYTEST_ARGS)

# With OPENAI_API_KEY set the judge is the OpenAI API: llama-server is not needed.
quickstart:
	$(SETUP) packages model $(if $(OPENAI_API_KEY),,llama)
	$(VPY) -m uta_tasks.quickstart $(QUICKSTART_ARGS)

wheel: setup-packages
	$(VPY) -m pip wheel --no-deps --no-build-isolation -w dist .

clean:
	rm -rf build dist *.egg-info .pytest_cache

distclean: clean
	rm -rf $(VENV)
