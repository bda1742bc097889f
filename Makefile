# uta-tasks: the two make commands of the README, and their parts.
#
#   make quickstart   fresh CPU machine -> SmolLM2 through lm_eval --model vllm on 3 IFBench tasks
#   make test         the whole test suite (what CI runs): lint, every test on lm-eval 0.4.13
#                     (slow and fast tests side by side), and the fast tests again on lm-eval 0.5
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
# make test-lm05: the fast tests of every suite whose code reaches lm-eval (through
# uta_tasks.lm_eval_compat), on lm-eval 0.5. Left out: what imports no lm-eval, and so runs the
# same code on either version (uta_tasks.judge, stats, schema: tests/judge but for the file that
# measures metrics, tests/stats, tests/schema), and tests/e2e (no fast test).
FAST_TESTS ?= tests/pipeline tests/probe tests/wrap tests/datasets tests/runs tests/manual tests/scale \
	tests/install tests/judge_batch tests/judge/test_judge_prelabel_paths.py tests/security tests/paper \
	tests/report tests/rejudge tests/gate tests/agreement tests/annotate tests/embedded tests/perf tests/compare \
	tests/test_structure.py
# make test: where the side checks (lint + lm-eval 0.5, and the fast tests) keep their output
# while they run beside the slow tests.
SIDE_LOG ?= .cache/make-test-side.log
FAST_LOG ?= .cache/make-test-fast.log
SLOW_LOG ?= .cache/make-test-slow.log
# make test: the two pytest processes generate at the same time, so each model runs on one
# thread (torch through OpenMP, and vLLM's CPU worker, which otherwise binds a thread to every
# core): spinning OpenMP threads of two processes on two cores run several times slower than
# one thread each (CONTRIBUTING.md, "How make test keeps within 30 minutes").
TEST_THREADS_ENV ?= OMP_NUM_THREADS=1 VLLM_CPU_OMP_THREADS_BIND=nobind

.PHONY: help setup setup-all setup-packages setup-fast setup-lm05 test test-fast test-lm05 test-install lint docs generate quickstart wheel bench clean distclean

help:
	@echo "make quickstart    run SmolLM2 on uta_ifbench{,_trunc,_question} with a judge (local unless OPENAI_API_KEY)"
	@echo "make test          set everything up, then run the whole pytest suite"
	@echo "make test-fast     only the tests not marked slow (no torch, no vLLM, no model)"
	@echo "make test-lm05     the fast tests on lm-eval $(LM05_VERSION) (every suite that reaches lm-eval: FAST_TESTS)"
	@echo "make lint          ruff, mypy on the package, the import contracts, no status literal outside schema/"
	@echo "make docs          build the manual (docs/) with mkdocs --strict into site/"
	@echo "make generate      rewrite the task YAML files from uta_tasks/tasks/generate.py"
	@echo "make test-install  build the wheel and test it in a fresh venv"
	@echo "make setup         create/update $(VENV) with the test tools, build llama-server, prepare the model"
	@echo "make wheel         build dist/uta_tasks-*.whl"
	@echo "make bench         run every benchmark in perf/ and print one table of ratios (perf/README.md); not part of make test"

# The quickstart installs only what the main job runs ('packages'); make test adds the
# test, lint and docs tools ('test', its own stamp).
setup:
	$(SETUP) packages test llama model

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

# Three things side by side, so that both cores work: the slow tests that share the session
# model and servers (one pytest process, so each is loaded or started once), the fast tests
# and the standalone slow ones (a second pytest process; tests/conftest.py marks a slow test
# standalone when it needs no session model or server), and lint + the manual's strict build
# + the lm-eval 0.5 run. The side outputs are printed, each line prefixed,
# when they end. make fails when any of the three fails; "no tests collected" (5) in one
# pytest half is fine when the other half ran (PYTEST_ARGS selecting only fast tests, say).
test: setup-all
	@mkdir -p $(dir $(SIDE_LOG)) $(dir $(FAST_LOG)); \
	( $(MAKE) --no-print-directory lint docs test-lm05 >$(SIDE_LOG) 2>&1; rc=$$?; \
	  sed 's/^/[lint+docs+lm05] /' $(SIDE_LOG); echo "[lint+docs+lm05] exit $$rc"; exit $$rc ) & side=$$!; \
	( $(TEST_THREADS_ENV) $(VPY) -m pytest -m "not slow or standalone" -p no:cacheprovider --durations=20 $(PYTEST_ARGS) >$(FAST_LOG) 2>&1; rc=$$?; \
	  sed 's/^/[fast+standalone] /' $(FAST_LOG); echo "[fast+standalone] exit $$rc"; exit $$rc ) & fast=$$!; \
	{ $(TEST_THREADS_ENV) $(VPY) -m pytest -m "slow and not standalone" --durations=20 $(PYTEST_ARGS); echo $$? >$(SLOW_LOG).rc; } | tee $(SLOW_LOG); slow=$$(cat $(SLOW_LOG).rc); \
	wait $$fast; fast=$$?; wait $$side; side=$$?; \
	echo "make test: slow tests exit $$slow, fast and standalone tests exit $$fast, lint + docs + lm-eval 0.5 exit $$side" >&2; \
	totals=$$(grep -hE '(passed|failed|errors?)(,.*)? in [0-9.]+s' $(SLOW_LOG) $(FAST_LOG) $(SIDE_LOG) | \
	  awk '{for (i = 2; i <= NF; i++) {w = $$i; sub(/[,=]+$$/, "", w); if (w == "passed") p += $$(i-1); \
	  if (w == "failed" || w == "error" || w == "errors") f += $$(i-1)}} END {print p + 0 " passed, " f + 0 " failed"}'); \
	echo "tests: $$totals"; \
	if [ $$side -ne 0 ]; then exit $$side; fi; \
	if [ $$slow -eq 5 ] && [ $$fast -eq 0 ]; then exit 0; fi; \
	if [ $$fast -eq 5 ] && [ $$slow -eq 0 ]; then exit 0; fi; \
	if [ $$slow -ne 0 ]; then exit $$slow; fi; \
	exit $$fast

test-fast: setup-fast
	$(FAST_VENV)/bin/python -m pytest -m "not slow" $(PYTEST_ARGS)

test-lm05: setup-lm05
	$(LM05_VENV)/bin/python -m pytest -m "not slow" $(FAST_TESTS) $(PYTEST_ARGS)

lint: setup-fast
	$(FAST_VENV)/bin/python -m ruff check uta_tasks tests perf
	$(FAST_VENV)/bin/python -m mypy uta_tasks
	$(FAST_VENV)/bin/lint-imports
	$(FAST_VENV)/bin/python scripts/check_schema_literals.py

docs: setup-fast
	NO_MKDOCS_2_WARNING=1 $(FAST_VENV)/bin/python -m mkdocs build --strict --quiet --site-dir site

generate: setup-fast
	$(FAST_VENV)/bin/python -m uta_tasks.tasks.generate

test-install: setup-packages
	$(SETUP) test
	$(VPY) -m pytest tests/install $(PYTEST_ARGS)

# With OPENAI_API_KEY set the judge is the OpenAI API: llama-server is not needed.
# The local judge is the model on its own `vllm serve`: nothing to build. llama-server is
# built only without vLLM (UTA_NO_VLLM=1). The setup's duration goes to the quickstart,
# which prints the time of every phase.
quickstart:
	started=$$(date +%s) && $(SETUP) packages model $(if $(OPENAI_API_KEY),,$(if $(filter 1,$(UTA_NO_VLLM)),llama,)) && \
	UTA_QUICKSTART_SETUP_SECONDS=$$(( $$(date +%s) - started )) $(VPY) -m uta_tasks.apps.quickstart $(QUICKSTART_ARGS)

wheel: setup-packages
	$(VPY) -m pip wheel --no-deps --no-build-isolation -w dist .

# Every perf/ script with bench(), each in its own process, one table of ratios against
# baselines measured in the same run; the last line names the ratios that miss their goals.
bench: setup-packages
	$(VPY) perf/bench.py

clean:
	rm -rf build dist site *.egg-info .pytest_cache

distclean: clean
	rm -rf $(VENV) $(FAST_VENV) $(LM05_VENV)
