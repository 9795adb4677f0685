# fairdeal — set-up and the everyday commands. Everything runs from a local virtual environment.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
#: the package and its runtime dependencies (what make demo needs), then the test tools on top
BASE   := $(VENV)/.installed-base
STAMP  := $(VENV)/.installed

.PHONY: install pyodide browser-runtime demo test bench bench-ledger bench-log lint clean fuzz fuzz-atheris \
	faults bench-load bench-durability bench-aims adversary compiled-test test-long

## make install compiles the hot modules of games/, verifier/ and audit/ with mypyc when a C
## compiler is there (setup.py's COMPILED, docs/compiled.md), and installs the pure-Python build
## otherwise or with FAIRDEAL_PURE=1. Those sources are prerequisites, so an edit to one
## recompiles: a compiled module never goes stale. The last lines say which build runs, and why
## when it is the pure one.
ifneq ($(FAIRDEAL_PURE),1)
COMPILED_SOURCES := $(shell $(PYTHON) -c 'import ast; tree = ast.parse(open("setup.py").read()); print(*next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED"))')
endif

## The package with its runtime dependencies and the fourth game, a plug-in package of its own
## (docs/architecture.md, "Writing a game"), in one pip run: what make demo needs.
$(BASE): pyproject.toml setup.py examples/crazy-eights/pyproject.toml $(COMPILED_SOURCES)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e . -e examples/crazy-eights
	@if [ -f build/fairdeal-build.txt ]; then echo "install: $$(cat build/fairdeal-build.txt)"; fi
	@echo "install: $$($(BIN)/fairdeal --version | tail -n 1)"
	touch $(BASE)

## Then the test suite's tools (pyproject.toml's `test` extra: pytest, playwright, the production
## servers, PostgreSQL's driver, Dask, ...), installed as requirements of their own so that the
## package is not built (and compiled) a second time. make demo does without them: they are
## over a third of a fresh machine's downloads (playwright alone 52 MB).
$(STAMP): $(BASE)
	$(BIN)/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["test"], sep="\n")' > $(VENV)/test-requirements.txt
	$(BIN)/pip install --quiet -r $(VENV)/test-requirements.txt
	touch $(STAMP)

install: $(STAMP)

## The browser verifier's runtime: the npm registry's pyodide package (version pinned in
## web/viewer/runtime.py, integrity checked), into the viewer's gitignored static/pyodide/.
## Needs npm. fairdeal serves it itself: no CDN at run time. Then the bytecode seed (Node.js):
## the standard library's code for a visitor's first visit (docs/browser.md, Speed).
pyodide: $(BASE)
	$(BIN)/python -c 'import sys; from fairdeal.web.viewer.seed import main; sys.exit(main())'

## The main job on the embedded default: bot matches of every game, verified offline, stored in
## the embedded database and served in the viewer, while bots play a few live matches on it
## (watch them from the home page). Ctrl+C stops it all. Every seat signs and commits to a seed
## (--signed --decline-rate 0), so every demo match reads "fair unless both players and the
## server colluded", the strongest guarantee (tests/test_demo.py). Beside them, a live Swiss of 8
## bots (docs/tournaments.md), auto-paired by the server, each match signed with the bots' keys,
## and finished by the server a seating window (60 s) after the last round: the time to dispute it.
demo: $(BASE)
	@if command -v npm >/dev/null 2>&1; then $(BIN)/python -c 'import sys; from fairdeal.web.viewer.runtime import main; sys.exit(main())'; \
	else echo "demo: npm is not installed, so match pages cannot verify in the browser (install npm, then make pyodide)"; fi
	rm -rf out/demo
	$(BIN)/fairdeal simulate arcomage --deck normal -n 3 --signed --decline-rate 0 --out out/demo
	$(BIN)/fairdeal simulate arcomage --deck infinite --battlefield "Mirror Labyrinth" -n 2 --signed --decline-rate 0 --out out/demo
	$(BIN)/fairdeal simulate toybattle -n 2 --signed --decline-rate 0 --out out/demo
	$(BIN)/fairdeal simulate toybattle --board "Station Metal-X" -n 2 --signed --decline-rate 0 --out out/demo
	$(BIN)/fairdeal simulate wyrdstone -n 2 --signed --decline-rate 0 --out out/demo
	$(BIN)/fairdeal simulate wyrdstone --param A.school=neutral --param A.patron=lich --param B.school=water -n 1 --signed --decline-rate 0 --out out/demo
	$(BIN)/fairdeal simulate wyrdstone --param 'A.tavern=["fire-whisky","bitter-draught"]' --param 'B.tavern=["hermits-tea"]' -n 1 --signed --decline-rate 0 --out out/demo
	$(BIN)/fairdeal verify out/demo/*.json
	$(BIN)/fairdeal import out/demo/*.json
	$(BIN)/fairdeal serve --quiet --host 127.0.0.1 --port 5000 & server=$$!; \
	trap 'kill $$server 2>/dev/null' INT TERM EXIT; \
	$(BIN)/fairdeal play --game arcomage -n 2 --signed --decline-rate 0 --pace 1.5 --no-progress & one=$$!; \
	$(BIN)/fairdeal play --game toybattle -n 2 --signed --decline-rate 0 --pace 1.5 --no-progress & two=$$!; \
	$(BIN)/fairdeal play --game wyrdstone -n 2 --signed --decline-rate 0 --pace 1.5 --no-progress & three=$$!; \
	$(BIN)/fairdeal keys new out/demo/arbiter.pem >/dev/null; \
	cup=$$($(BIN)/fairdeal tournament create "demo Swiss" --game toybattle --system swiss --rounds 3 --arbiter-key out/demo/arbiter.pem --auto --token-file out/demo/organiser.token -q); \
	$(BIN)/fairdeal play --tournament $$cup -n 8 --pace 1.5 --keys out/demo/bots --organiser-token-file out/demo/organiser.token & four=$$!; \
	echo "demo: a Swiss of 8 bots, paired by the server round by round and finished a minute after the last (the time to dispute it): http://127.0.0.1:5000/t/$$cup"; \
	wait $$one $$two $$three $$four; \
	echo "demo: the live bot matches and the tournament are over; the viewer stays on http://127.0.0.1:5000/ (Ctrl+C stops it)"; \
	wait $$server

## The whole test suite (PostgreSQL tests need FAIRDEAL_TEST_POSTGRES_URL; .ci/run sets it) on
## the build installed (compiled where a C compiler is), then the verifier's tests again on the
## pure-Python modules (FAIRDEAL_PURE=1): the browser runs those, and machines without a compiler.
## The browser tests need the Pyodide runtime, so it is fetched first when npm can; without npm
## or its registry they are skipped, saying why (.ci/run installs npm and requires them:
## FAIRDEAL_REQUIRE_BROWSER=1).
## Both runs spread over TEST_WORKERS processes (pytest-xdist; 2 = CI's cores), each test
## handed to whichever is free (worksteal), the slowest modules first (conftest.py), so that the
## last tests taken are quick ones and neither core idles at the end.
TEST_WORKERS ?= 2
test: $(STAMP) browser-runtime
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist worksteal
	FAIRDEAL_PURE=1 $(BIN)/pytest -q -n $(TEST_WORKERS) --dist worksteal -p no:cacheprovider tests/verifier

## The Pyodide runtime if this machine can fetch it; if not, one line says why and what is lost.
browser-runtime: $(STAMP)
	@$(BIN)/python -c 'import sys; from fairdeal.web.viewer.seed import main; sys.exit(main())' \
	|| echo "test: no Pyodide runtime (see above), so the browser verifier's tests will be skipped"

## The suite's random samples at full length (make test keeps a sample of each): 10,000 random
## Ed25519 keys against OpenSSL instead of 150, and the audit's bounded memory over 100,000
## matches instead of 40,000. The compiled build, the adversary and the fault loop have long
## runs of their own (compiled-test, adversary, faults).
test-long: $(STAMP)
	FAIRDEAL_ED25519_KEYS=10000 FAIRDEAL_AUDIT_MATCHES=100000 nice -n 10 $(BIN)/pytest -q \
		-p no:cacheprovider tests/verifier/test_ed25519.py tests/audit/test_memory.py

## Benchmarks live outside the test suite. bench-ledger starts gunicorn servers and uses
## PostgreSQL too when FAIRDEAL_TEST_POSTGRES_URL is set (or --postgres URL).
bench: $(STAMP)
	$(BIN)/python bench/bench_verify.py
	$(BIN)/python bench/bench_verify.py --bots random,random
	$(BIN)/python bench/bench_verify.py --game toybattle
	$(BIN)/python bench/bench_viewer.py
	$(BIN)/python bench/bench_pictures.py --runs 3

## Issue 20's table, every row's bench in turn with its anchor (bench/aims.sh; ~20 min, on a
## quiet machine): AIMS="verify audit" for some rows only.
AIMS ?=
bench-aims: $(STAMP)
	bash bench/aims.sh $(AIMS)

bench-ledger: $(STAMP)
	$(BIN)/python bench/bench_ledger.py

## The load run: fairdeal play -c 16 for 60 s against gunicorn and granian, alternating, on
## SQLite (and PostgreSQL when FAIRDEAL_TEST_POSTGRES_URL is set); moves/s, p50/p99, errors,
## every chain verified after, and each side's CPU per move.
bench-load: $(STAMP)
	$(BIN)/python bench/bench_load.py --seconds 60 --concurrency 16

## synchronous=FULL: fairdeal's appends against the eventsourcing library's SQLite recorder,
## 1 and 16 writers, medians of 5 alternating runs (pip install eventsourcing).
bench-durability: $(STAMP)
	$(BIN)/python bench/bench_ledger.py --durability 5 --moves 1600

## The documented fuzz run (not in the test suite; docs/hardening.md has its figures): a
## million mutated inputs against the verifier, the CLI, the API's bodies, the import and the
## upload page, niced; FUZZ_INPUTS=... for another count. Problems land in fixtures/hostile/found.
FUZZ_INPUTS ?= 1000000
fuzz: $(STAMP)
	nice -n 10 $(BIN)/python -m fuzzing.run --inputs $(FUZZ_INPUTS) --workers 2 --out out/fuzz

## The adversary's long campaign (not in the test suite, whose short one runs 300 cases): the
## property of tests/adversary/test_property.py on ADVERSARY_CASES forgeries by a server holding
## its own key, niced. It prints how many cases ran and how many verdicts were OK and FAIL; a
## forgery that verifies OK and breaks the oracle fails the run with its shrunk example.
ADVERSARY_CASES ?= 100000
adversary: $(STAMP)
	FAIRDEAL_ADVERSARY_CASES=$(ADVERSARY_CASES) nice -n 10 $(BIN)/pytest -q -p no:cacheprovider \
		tests/adversary/test_property.py::test_no_forgery_verifies_as_the_honest_match

## Coverage-guided fuzzing of the verifier with atheris (pip install atheris), for FUZZ_SECONDS.
FUZZ_SECONDS ?= 600
fuzz-atheris: $(STAMP)
	$(BIN)/pip install --quiet atheris
	nice -n 10 $(BIN)/python -m fuzzing.atheris_verify -max_total_time=$(FUZZ_SECONDS) \
		-timeout=2 -rss_limit_mb=2048 out/fuzz/atheris-corpus

## The fault loop (not in the test suite, which kills 3 times): the server SIGKILLed mid-write
## 100 times, then the disk-full and PostgreSQL stop/start tests (a private cluster on its own
## port; the shared server is never touched).
KILL_ROUNDS ?= 100
faults: $(STAMP)
	FAIRDEAL_KILL_ROUNDS=$(KILL_ROUNDS) $(BIN)/pytest -q -p no:cacheprovider tests/hostile/test_faults.py

## The transparency log: appends per second and inclusion proofs at 1 million leaves (SQLite;
## PostgreSQL too when FAIRDEAL_TEST_POSTGRES_URL is set).
bench-log: $(STAMP)
	$(BIN)/python bench/bench_log.py

## ruff everywhere; mypy --strict on the pure layers, the audit and the client. mypy cannot follow the editable install's
## folder mapping, so it reads them through a fairdeal/ folder of links.
lint: $(STAMP)
	$(BIN)/pip install --quiet ruff mypy
	$(BIN)/ruff check games verifier audit ledger client web cli tests bench fixtures fuzzing examples \
		conftest.py
	rm -rf build/typecheck && mkdir -p build/typecheck/fairdeal
	ln -s ../../../games build/typecheck/fairdeal/games
	ln -s ../../../verifier build/typecheck/fairdeal/verifier
	ln -s ../../../audit build/typecheck/fairdeal/audit
	ln -s ../../../client build/typecheck/fairdeal/client
	cd build/typecheck && MYPYPATH=.:../../examples/crazy-eights ../../$(BIN)/mypy --strict --namespace-packages --explicit-package-bases -p fairdeal.games -p fairdeal.verifier -p fairdeal.audit -p fairdeal.client -p fairdeal_crazy_eights

clean:
	rm -rf $(VENV) out build test-output .pytest_cache

## The compiled build against the pure one, deeper than the suite's run: every fixture, and
## FAIRDEAL_DIFF_MATCHES (default 1000) simulated matches of every game through both builds, their
## bundles, reports, replays and audit compared byte for byte. Fails where nothing is compiled.
FAIRDEAL_DIFF_MATCHES ?= 1000
compiled-test: $(STAMP)
	FAIRDEAL_REQUIRE_COMPILED=1 FAIRDEAL_DIFF_MATCHES=$(FAIRDEAL_DIFF_MATCHES) \
		$(BIN)/pytest -q -p no:cacheprovider tests/test_compiled.py
