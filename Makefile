# Every target bootstraps .venv on first use, so a fresh clone needs only Python 3 and make.
PYTHON ?= python3
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PEERS_STAMP := $(VENV)/.peers-stamp
JS_STAMP := clients/js/node_modules/.installed-stamp
# The suite starts about a hundred Python processes (the CLI, pytest in copies, xdist workers):
# without bytecode caches each compiles the package again and pytest rewrites every test module
# again, which costs a third of the collection. The caches (__pycache__/) are ignored by git.
unexport PYTHONDONTWRITEBYTECODE
# What a user sets on the command line (names, URLs, headers, commands) reaches the programs
# through the environment, never through the recipe's text: each recipe reads "$$NAME" in double
# quotes, so a value is one argument whatever it holds (`ROUTE='direct; touch x #'` is a route
# name, refused as unknown, and runs nothing).
export PROVIDER SCENARIO ROUTE MODEL HEADER BASE_URL ACCEPT NAME KEY_ENV EXTERNAL GATEWAY \
	GATEWAY_URL SERVE_PORT CLIENTS WIRE CASE
PYTEST_FILTERS := $${PROVIDER:+--toolcall-provider "$$PROVIDER"} $${SCENARIO:+--toolcall-scenario "$$SCENARIO"} \
	$${WIRE:+--toolcall-wire "$$WIRE"} $${CASE:+--toolcall-case "$$CASE"}

# `make test` spreads the suite over the cores (pytest-xdist); a worker that runs out of tests takes
# the last ones queued for another, so one long test file does not leave a core idle at the end.
PYTEST_WORKERS ?= -n auto --maxprocesses 4 --dist worksteal

.PHONY: help test check conformance matrix matrix-docs gateways gateways-docs report screenshot bench fuzz lint typecheck synthesize record add-provider drift scan clean

## help: list the targets and what each does
help:
	@sed -n 's/^## \([a-z-]*\): /\1\t/p' $(MAKEFILE_LIST) | expand -t 16

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# The distribution was called `toolcall` before; a .venv made then still holds it, and its
	@# entry points would register the pytest plugin a second time.
	$(BIN)/python -m pip uninstall --quiet --yes toolcall 2>/dev/null || true
	$(BIN)/python -m pip install --quiet -e '.[dev,fast]'
	touch $(STAMP)

## test: lint, mypy --strict, and the pytest suite (conformance included), slow tests aside
test: lint typecheck $(JS_STAMP)
	$(BIN)/python -m pytest -q -m "not slow" $(PYTEST_WORKERS)

## check: make test, then the slow end-to-end tests (whole runs); what CI runs
check: test
	$(BIN)/python -m pytest -q -m slow $(PYTEST_WORKERS)

## conformance: replay every cassette offline; matrix on screen, JUnit + Markdown in reports/
conformance: $(STAMP)
	@mkdir -p reports
	$(BIN)/python -m pytest -q tests/test_conformance.py $(PYTEST_FILTERS) \
		--junitxml=reports/conformance.xml --toolcall-report=reports/conformance.md \
		--toolcall-json=reports/conformance.json

# The peers (the openai, anthropic and google-genai SDKs, langchain-core, litellm) for `make matrix`
# and `make bench`. A peer that cannot be installed is not fatal: both commands list it as
# unavailable, with the reason.
$(PEERS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,fast,peers]' && touch $(PEERS_STAMP) \
		|| echo "warning: the peers extra did not install; missing peers are listed as unavailable"

# The JavaScript clients (openai Node SDK, Vercel AI SDK), pinned by clients/js/package-lock.json.
# Like the Python peers, a failed install is not fatal: the matrix lists them as unavailable.
$(JS_STAMP): clients/js/package-lock.json
	(command -v npm >/dev/null && npm ci --prefix clients/js --no-audit --no-fund --loglevel=error \
		&& touch $(JS_STAMP)) \
		|| echo "warning: the JavaScript clients did not install; they are listed as unavailable"

## matrix: every assembler (ours, the peers, EXTERNAL='name=command') over every cassette
matrix: $(PEERS_STAMP) $(JS_STAMP)
	@mkdir -p reports
	$(BIN)/toolcall matrix --markdown reports/matrix.md --json reports/matrix.json \
		$(SELECTION) $${WIRE:+--wire "$$WIRE"} $${CASE:+--case "$$CASE"} \
		$${EXTERNAL:+--external "$$EXTERNAL"}

## gateways: LiteLLM, Portkey (two ways), openai-forward before serve (GATEWAY_URL= checks yours)
CLIENTS ?= 1
gateways: $(STAMP) $(if $(filter 0,$(CLIENTS)),,$(JS_STAMP))
	@mkdir -p reports
	$(BIN)/toolcall gateways --markdown reports/gateways.md --json reports/gateways.json \
		$(SELECTION) $${GATEWAY:+--gateway "$$GATEWAY"} $${SERVE_PORT:+--serve-port "$$SERVE_PORT"} \
		$${GATEWAY_URL:+--gateway-url "$$GATEWAY_URL" --strict} \
		$(if $(filter 0,$(CLIENTS)),--no-clients)

## gateways-docs: rewrite docs/MATRIX.md's gateway section from the last run (reports/gateways.json)
gateways-docs: $(STAMP)
	$(BIN)/toolcall gateways --from-json reports/gateways.json --docs docs/MATRIX.md --markdown reports/gateways.md

## matrix-docs: write the counts in docs/MATRIX.md and docs/PROTOCOL.md from a run (go, node)
matrix-docs: $(STAMP)
	$(BIN)/python -m toolcall.harness.matrix.docs

## report: the report site from the last runs' JSON in reports/ into reports/site/
# Reads what make conformance, make matrix and make gateways (and toolcall probe and doctor)
# left in reports/, whichever are there; open reports/site/index.html in any browser.
report: $(STAMP)
	$(BIN)/toolcall report --reports reports --out reports/site

## screenshot: make report, and the overview pictured by Chromium as docs/report-overview.png
# Needs the distribution's Chromium at /usr/bin/chromium (apt-get install chromium); Playwright
# (the dev extra) drives it, and downloads no browser of its own.
screenshot: $(STAMP)
	$(BIN)/toolcall report --reports reports --out reports/site --screenshot docs/report-overview.png

## bench: end-to-end cost as a ratio to stdlib json.loads of the same chunks, peers beside
bench: $(PEERS_STAMP)
	@mkdir -p reports
	$(BIN)/python benchmarks/bench.py --markdown reports/bench.md

## fuzz: mutate real bodies for FUZZ_SECONDS (600); failures kept for make test to replay
# On both JSON backends; a failing body is kept in tests/fuzz_corpus/, which `make test` replays.
FUZZ_SECONDS ?= 600
fuzz: $(STAMP)
	$(BIN)/python -m tests.fuzzing --seconds $(FUZZ_SECONDS)

## lint: ruff check and ruff format --check
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## typecheck: mypy --strict over the package
typecheck: $(STAMP)
	$(BIN)/mypy --strict toolcall

## synthesize: rewrite the synthesized cassettes from providers.yaml and scenarios.yaml
synthesize: $(STAMP)
	$(BIN)/toolcall synthesize $(SELECTION)

# Through a route (routes.yaml): ROUTE=<name>, MODEL=<alias>, and HEADER='name: value' (several
# separated by `;`), passed to `toolcall record` as --route, --model and one --header each. The
# shell builds the arguments (`args`) from the environment, so no value is ever parsed as a command.
ROUTE_ARGS = args=($${ROUTE:+--route "$$ROUTE"} $${MODEL:+--model "$$MODEL"}); \
	IFS=';' read -ra headers <<< "$$HEADER"; \
	for h in "$${headers[@]}"; do [[ -z "$${h// }" ]] || args+=(--header "$$h"); done;
# The PROVIDER= and SCENARIO= filters of a command that takes --provider and --scenario.
SELECTION := $${PROVIDER:+--provider "$$PROVIDER"} $${SCENARIO:+--scenario "$$SCENARIO"}

## record: record PROVIDER (SCENARIO, ROUTE) from the live API; ACCEPT=1 writes its profile too
record: $(STAMP)
	@test -n "$$PROVIDER" || { echo "usage: make record PROVIDER=<name> [SCENARIO=<name>] [BASE_URL=<url>] [ROUTE=<name>] [MODEL=<alias>] [HEADER='name: value; ...'] [ACCEPT=1]"; exit 2; }
	$(ROUTE_ARGS) $(BIN)/toolcall record $(SELECTION) \
		$${BASE_URL:+--base-url "$$BASE_URL"} "$${args[@]}" $(if $(filter 1,$(ACCEPT)),--accept)
	$(BIN)/toolcall scan

## add-provider: append a profile to providers.yaml (NAME= BASE_URL= KEY_ENV= MODEL=)
add-provider: $(STAMP)
	@test -n "$$NAME" -a -n "$$BASE_URL" -a -n "$$KEY_ENV" -a -n "$$MODEL" || { echo "usage: make add-provider NAME=<name> BASE_URL=<url> KEY_ENV=<VARIABLE> MODEL=<model>"; exit 2; }
	$(BIN)/toolcall add-provider "$$NAME" --base-url "$$BASE_URL" --key-env "$$KEY_ENV" --model "$$MODEL"

## drift: re-record each provider with a key into reports/drift/, compare (PROVIDER= ROUTE=)
drift: $(STAMP)
	@mkdir -p reports
	$(ROUTE_ARGS) $(BIN)/toolcall record --skip-missing-keys --out reports/drift/cassettes \
		$${PROVIDER:+--provider "$$PROVIDER"} $${BASE_URL:+--base-url "$$BASE_URL"} "$${args[@]}" \
		2>&1 | tee reports/drift.txt; exit $${PIPESTATUS[0]}

## scan: look for API keys, bearer tokens and JWTs in cassettes/
scan: $(STAMP)
	$(BIN)/toolcall scan

## clean: remove .venv, reports and caches
clean:
	rm -rf $(VENV) .gateways reports .mypy_cache .ruff_cache .pytest_cache .hypothesis
