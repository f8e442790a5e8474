# Every target with a '## ' comment is listed by 'make help'.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.install-stamp
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

.PHONY: help deps lint generate check-generated spec-diff docs build run test test-unit test-faults contract mock mock-reset bench clean test-suites contract-run

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  make %-16s %s\n", $$1, $$2}'

# The install runs no package's own install script but esbuild's (which checks its binary) and this project's
# postinstall (the validator's patch). The one package that builds something, better-sqlite3, compiles SQLite from
# source (no prebuilt binary is downloaded), a core for a minute or more: it is built as a target of its own, so
# that `make test` runs the checks and the build beside it.
$(NPM_STAMP): package.json package-lock.json client/package.json
	npm ci --no-fund --no-audit --ignore-scripts
	npm rebuild esbuild
	npm run --silent postinstall
	@touch $@

SQLITE_BINDING := node_modules/better-sqlite3/build/Release/better_sqlite3.node
$(SQLITE_BINDING): $(NPM_STAMP)
	npm rebuild better-sqlite3
	@touch $@

# The client package, built when its sources changed (the stamp is in node_modules, so a new install builds it again).
# npm links a workspace's command into node_modules/.bin only if it is built: then `npx compliance-conductor` runs it.
CLIENT_SOURCES := $(shell find client/src client/scripts -type f) client/package.json $(wildcard client/tsconfig*.json)
CLIENT_BUILD := node_modules/.client-build-stamp
$(CLIENT_BUILD): $(NPM_STAMP) $(CLIENT_SOURCES)
	npm run build --silent -w client && npm rebuild --ignore-scripts @compliance-conductor/client
	@touch $@

# What the checks and builds need; what runs the server needs the SQLite binding besides.
TOOLS := $(NPM_STAMP) $(CLIENT_BUILD)
deps: $(TOOLS) $(SQLITE_BINDING) ## Install npm dependencies (only when package files changed) and build the client package

lint: $(TOOLS) ## Lint every spec (redocly and the house rules), check every example against its schema, type-check, check the layers
	redocly lint --config redocly.yaml --format stylish
	depcruise server/src --config .dependency-cruiser.cjs
	tsx scripts/check-spec-rules.ts
	tsx scripts/check-examples.ts
	tsc -p tsconfig.json --noEmit

generate: $(TOOLS) ## Bundle the specs, convert them to OpenAPI 3 and generate TypeScript types into generated/
	tsx scripts/generate.ts

check-generated: $(TOOLS) ## Fail when generated/ is stale against specs/
	tsx scripts/check-generated.ts

spec-diff: check-generated ## Fail on a breaking spec change since the last release tag or HEAD~1 (SPEC_DIFF_BASE=<ref>) not acknowledged
	tsx scripts/spec-diff.ts

docs: $(TOOLS) ## Static HTML reference of each spec (redocly build-docs) in reports/docs/<api>.html, linked from /docs
	tsx scripts/build-docs.ts

# Each part is rebuilt only when a file it is built from changed, so `make run` after `make run` starts at once.
SERVER_SOURCES := $(shell find server/src generated -type f) tsconfig.json tsconfig.build.json
CONSOLE_SOURCES := $(shell find console/src client/src -type f) console/index.html console/vite.config.ts console/package.json
SERVER_STAMP := dist/.built
CONSOLE_BUILD := console/dist/index.html

$(SERVER_STAMP): $(NPM_STAMP) $(SERVER_SOURCES)
	rm -rf dist
	tsc -p tsconfig.build.json
	@touch $@

$(CONSOLE_BUILD): $(NPM_STAMP) $(CLIENT_BUILD) $(CONSOLE_SOURCES)
	npm run build --silent -w console

build: $(SERVER_STAMP) $(CONSOLE_BUILD) ## Compile the server into dist/ and build the web console into console/dist/ (what changed)

run: build $(SQLITE_BINDING) ## Start the server (SQLite under ./data, demo data; see README for the variables)
	DEMO_DATA=$${DEMO_DATA:-true} node dist/server/src/main.js

# reports/jest-results.json names every test, for scripts/each-test-alone.ts.
JEST_RESULTS := --json --outputFile=reports/jest-results.json

test-unit: deps ## Unit and component tests on jest (SQLite, and PostgreSQL when TEST_DATABASE_URL is set); COVERAGE=1 writes coverage/
	@# What the suites exercise feeds the spec coverage of `make contract`; start from nothing so no earlier run counts.
	rm -rf reports/exercised $(if $(COVERAGE),coverage)
	mkdir -p reports
	npm run --silent test:unit -- $(JEST_RESULTS) $(if $(COVERAGE),--coverage)
	tsx scripts/check-exercised.ts

test-faults: build $(SQLITE_BINDING) ## Kill the server with SIGKILL at each fault point of each kind of background work, and take its PostgreSQL away during each; check what survives (FAULT_SEED, FAULT_ONLY, FAULT_RUNS, OUTAGE_ONLY)
	FAULT_MATRIX=1 SERVER_BUILD=dist npm run --silent test:unit -- server/test/fault-matrix.test.ts server/test/outage-matrix.test.ts

contract: build $(SQLITE_BINDING) ## Dredd against the real server and against Prism mocks of each spec; spec coverage in reports/
	tsx contract-tests/run.ts
	tsx contract-tests/spec-coverage.ts

test: $(NPM_STAMP) ## Everything: lint, freshness, breaking changes, unit and component tests, the fault matrix, contract tests, spec coverage
	@# The SQLite binding (the longest), the client's build, the checks and the build first, two at a time: each is
	@# mostly one single-threaded process.
	$(MAKE) --no-print-directory --output-sync=target -j2 $(SQLITE_BINDING) lint spec-diff build
	@# One jest run takes every suite and the fault and outage matrices (which mostly wait on the servers they restart),
	@# and the contract run goes beside it: they share only the build. Each one's output is kept together. What they
	@# exercised is checked once both are done.
	rm -rf reports/exercised
	mkdir -p reports
	$(MAKE) --no-print-directory --output-sync=target -j2 test-suites contract-run
	tsx scripts/check-exercised.ts
	tsx contract-tests/spec-coverage.ts
	@echo "make test: all checks passed"

# The halves of `make test` that run side by side (not listed by `make help`). The two matrices hold a jest worker
# each for minutes while the servers they restart do the work: two workers more than the cores keep every core busy.
test-suites:
	FAULT_MATRIX=1 SERVER_BUILD=dist npm run --silent test:unit -- $(JEST_RESULTS) --maxWorkers=$$(($$(nproc) + 2))
contract-run:
	tsx contract-tests/run.ts

mock: build $(SQLITE_BINDING) ## Prism mocks of each spec (:4010-:4012) and the stateful mock: the real server with demo data (:4000)
	tsx contract-tests/stateful-mock.ts

mock-reset: ## Reset the stateful mock (make mock) to the seeded demo state
	@curl -fsS -X POST http://127.0.0.1:$${MOCK_PORT_STATEFUL:-4000}/mock/reset && echo

bench: build $(SQLITE_BINDING) ## Benchmarks: four reads against bare Express and Prism's mocks (wrk if installed), a 1 000-result page with and without compression, a 100 000-resource scan, /healthz during a 150 000-resource scan, request validation of the worst bodies
	tsx bench/http.ts
	tsx bench/compression.ts
	tsx bench/scan.ts
	tsx bench/event-loop.ts
	tsx bench/request-validation.ts

clean: ## Remove build output and local data
	rm -rf dist console/dist data reports
