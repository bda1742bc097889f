# uta-tasks: the two commands of the README, and their parts.
#
#   make quickstart   fresh CPU machine -> SmolLM2 through lm_eval --model vllm on 3 IFBench tasks
#   make test         the whole test suite (what CI runs): lint, every test on lm-eval 0.4.13
#                     (on 2 xdist workers), and the fast pipeline tests again on lm-eval 0.5
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
# Torch-free venvs for the fast suite, one per lm-eval version.
FAST_VENV ?= .venv-fast
LM05_VENV ?= .venv-lm05
LM05_VERSION ?= 0.5.0.dev1
FAST_TESTS ?= tests/pipeline tests/probe
# make test: xdist workers of the main suite (tests/conftest.py keeps the tests of one session
# model or server in one worker), and where lint and the lm-eval 0.5 run keep their output
# while they run beside it.
PYTEST_WORKERS ?= 2
SIDE_LOG ?= .cache/make-test-side.log

.PHONY: help setup setup-all setup-packages setup-fast setup-lm05 test test-fast test-lm05 test-install lint generate quickstart wheel clean distclean

help:
	@echo "make quickstart    run SmolLM2 on uta_ifbench{,_trunc,_question} with a judge (local unless OPENAI_API_KEY)"
	@echo "make test          set everything up, then run the whole pytest suite"
	@echo "make test-fast     only the tests not marked slow (no torch, no vLLM, no model)"
	@echo "make test-lm05     the fast pipeline tests on lm-eval $(LM05_VERSION)"
	@echo "make lint          ruff, and mypy on the package"
	@echo "make generate      rewrite the task YAML files from uta_tasks/tasks/generate.py"
	@echo "make test-install  build the wheel and test it in a fresh venv"
	@echo "make setup         create/update $(VENV), build llama-server, prepare the model"
	@echo "make wheel         build dist/uta_tasks-*.whl"

setup:
	$(SETUP) packages llama model

# The three environments side by side: pip's downloads and installs overlap each other and
# the llama-server build.
setup-all:
	$(MAKE) --no-print-directory -j3 setup setup-fast setup-lm05

setup-packages:
	$(SETUP) packages

setup-fast:
	PYTHON=$(PYTHON) bash scripts/setup_light_env.sh $(FAST_VENV) 0.4.13

setup-lm05:
	PYTHON=$(PYTHON) bash scripts/setup_light_env.sh $(LM05_VENV) $(LM05_VERSION)

# lint and the lm-eval 0.5 run go beside the main suite, which runs on $(PYTEST_WORKERS) xdist
# workers: the slow tests spend much of their time in one-core work (imports, engine and server
# start-up, subprocesses), which leaves a core to the rest. Their output is printed, prefixed,
# when they end; make fails when either side fails.
test: setup-all
	@mkdir -p $(dir $(SIDE_LOG)); \
	( $(MAKE) --no-print-directory lint test-lm05 >$(SIDE_LOG) 2>&1; rc=$$?; \
	  sed 's/^/[lint+lm05] /' $(SIDE_LOG); echo "[lint+lm05] exit $$rc"; exit $$rc ) & side=$$!; \
	$(VPY) -m pytest -n $(PYTEST_WORKERS) --dist loadgroup $(PYTEST_ARGS); main=$$?; \
	wait $$side; side=$$?; \
	if [ $$side -ne 0 ]; then echo "make test: lint or test-lm05 failed (lines marked [lint+lm05])" >&2; exit $$side; fi; \
	exit $$main

test-fast: setup-fast
	$(FAST_VENV)/bin/python -m pytest -m "not slow" $(PYTEST_ARGS)

test-lm05: setup-lm05
	$(LM05_VENV)/bin/python -m pytest -m "not slow" $(FAST_TESTS) $(PYTEST_ARGS)

lint: setup-fast
	$(FAST_VENV)/bin/python -m ruff check uta_tasks tests perf
	$(FAST_VENV)/bin/python -m mypy uta_tasks

generate: setup-fast
	$(FAST_VENV)/bin/python -m uta_tasks.tasks.generate

test-install: setup-packages
	$(VPY) -m pytest tests/install $(PYTEST_ARGS)

# With OPENAI_API_KEY set the judge is the OpenAI API: llama-server is not needed.
# The local judge is the model on its own `vllm serve`: nothing to build. llama-server is
# built only without vLLM (UTA_NO_VLLM=1). The setup's duration goes to the quickstart,
# which prints the time of every phase.
quickstart:
	started=$$(date +%s) && $(SETUP) packages model $(if $(OPENAI_API_KEY),,$(if $(filter 1,$(UTA_NO_VLLM)),llama,)) && \
	UTA_QUICKSTART_SETUP_SECONDS=$$(( $$(date +%s) - started )) $(VPY) -m uta_tasks.quickstart $(QUICKSTART_ARGS)

wheel: setup-packages
	$(VPY) -m pip wheel --no-deps --no-build-isolation -w dist .

clean:
	rm -rf build dist *.egg-info .pytest_cache

distclean: clean
	rm -rf $(VENV) $(FAST_VENV) $(LM05_VENV)
