# Two commands for a fresh machine: `make demo` and `make test`.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
comma := ,
# The 0.5B model too: the llama-server recipe's tests serve it.
EXTRAS ?= openai,openai-server,ag-ui,anthropic,azure,local,local-qwen-coder-0-5b,mcp,a2a,otel,durable
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

# llama.cpp: a lean CPU build (same speed and outputs as the default, a third of the build time).
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
# With the default OpenMP policy, spinning threads starve every other process on small machines.
export OMP_WAIT_POLICY ?= passive

# MCP servers nobody here wrote, for the tests: pinned, installed into a local folder.
MCP_SERVERS := .mcp-servers
EVERYTHING := @modelcontextprotocol/server-everything@2026.8.31
EVERYTHING_STAMP := $(MCP_SERVERS)/.installed-$(subst /,-,$(EVERYTHING))
# Protocol clients written in TypeScript, for the servers' tests: pinned, in a local folder.
JS_CLIENTS := .js-clients
AG_UI_CLIENT := @ag-ui/client@1.0.0
JS_CLIENTS_STAMP := $(JS_CLIENTS)/.installed-$(subst /,-,$(AG_UI_CLIENT))

# llama.cpp's own HTTP server, which speaks the OpenAI and Anthropic APIs, for the provider
# tests: built once from the llama.cpp sources that llama-cpp-python's sdist vendors (the
# server target only, no web UI, nothing fetched at build time).
LLAMA_CPP_PYTHON := 0.3.36
LLAMA_SERVER_DIR := .llama-server
LLAMA_SERVER_STAMP := $(LLAMA_SERVER_DIR)/.built-llama-cpp-python-$(LLAMA_CPP_PYTHON)
LLAMA_SERVER_CMAKE_ARGS := $(if $(shell command -v ninja),-G Ninja) \
	-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
	-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
	-DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF

.PHONY: install mcp-servers js-clients llama-server postgres demo durable-demo test lint typecheck unit bench bench-against bench-local bench-a2a-load clean

install: $(STAMP)

mcp-servers: $(EVERYTHING_STAMP)

js-clients: $(JS_CLIENTS_STAMP)

# The tests start their own PostgreSQL server from Debian's binaries (never a system service).
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
		echo "Installing Debian's postgresql package for the tests."; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq postgresql >/dev/null; }

llama-server: $(LLAMA_SERVER_STAMP)

$(EVERYTHING_STAMP):
	npm install --prefix $(MCP_SERVERS) --no-save --no-audit --no-fund --loglevel=error $(EVERYTHING)
	touch $@

$(JS_CLIENTS_STAMP):
	npm install --prefix $(JS_CLIENTS) --no-save --no-audit --no-fund --loglevel=error $(AG_UI_CLIENT)
	touch $@

$(LLAMA_SERVER_STAMP): | $(STAMP)
	@echo "Building llama.cpp's llama-server for the provider tests: a few minutes, once."
	rm -rf $(LLAMA_SERVER_DIR)/sdist $(LLAMA_SERVER_DIR)/build
	$(PY) -m pip download --quiet --disable-pip-version-check --no-binary :all: --no-deps \
		--dest $(LLAMA_SERVER_DIR)/sdist "llama-cpp-python==$(LLAMA_CPP_PYTHON)"
	tar -xzf $(LLAMA_SERVER_DIR)/sdist/llama_cpp_python-$(LLAMA_CPP_PYTHON).tar.gz \
		-C $(LLAMA_SERVER_DIR)/sdist
	cmake --no-warn-unused-cli -S $(LLAMA_SERVER_DIR)/sdist/llama_cpp_python-$(LLAMA_CPP_PYTHON)/vendor/llama.cpp \
		-B $(LLAMA_SERVER_DIR)/build $(LLAMA_SERVER_CMAKE_ARGS) $(CMAKE_ARGS) > /dev/null
	cmake --build $(LLAMA_SERVER_DIR)/build --target llama-server --parallel $$(nproc)
	install -D $(LLAMA_SERVER_DIR)/build/bin/llama-server $(LLAMA_SERVER_DIR)/bin/llama-server
	rm -rf $(LLAMA_SERVER_DIR)/sdist $(LLAMA_SERVER_DIR)/build
	touch $@

# uv runs without --quiet so that, on a terminal, it shows what it downloads and builds.
$(STAMP): pyproject.toml Makefile
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check "uv==0.13.9"
	@echo "Installing agentry with the extras $(EXTRAS) into $(VENV)."
ifneq (,$(findstring local,$(EXTRAS)))
	@echo "The first time, this compiles llama.cpp for the local model (uv shows it as"
	@echo "'Building llama-cpp-python'): 5 to 10 minutes on two cores. The wheel is then cached."
endif
	$(UV) pip install --python $(PY) -e ".[$(EXTRAS)]" --group dev
	touch $@

demo: install
	$(PY) examples/demo.py

# A durable workflow on the embedded SQLite default: its worker is killed, the next finishes it.
durable-demo: install
	$(PY) examples/durable/crash_and_resume.py

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: install
	$(VENV)/bin/basedpyright

# One pytest-xdist worker per core, each test module on one worker (its module-scoped servers
# and models start once), modules in file order so the slow A2A process tests start first.
# `make unit TEST_WORKERS=0` runs the suite in one process.
TEST_WORKERS ?= $(shell nproc)
unit: install mcp-servers js-clients llama-server postgres
	$(VENV)/bin/pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

test: lint typecheck unit

bench: install
	$(PY) -m benchmarks

# The core scenarios on this checkout against an earlier commit, timed in turns in one run:
# `make bench-against REF=HEAD~10`.
bench-against: install
	$(PY) -m benchmarks.against_ref $(REF)

# How well the local model uses tools (64 scored turns, a few minutes): hits per category,
# then the median seconds, prompt tokens evaluated (not from the cache) and tokens generated per turn.
# `make bench-local ARGS="--model NAME --category no-tool --limit 3"` for another model or a subset.
bench-local: install
	$(PY) -m benchmarks.local_eval $(ARGS)

# The A2A load bar: 5,000 concurrent streaming tasks on one server, on SQLite and then on
# a throwaway PostgreSQL (heavy: tens of minutes on two cores). Another load, with the
# plain a2a-sdk baseline too: `make bench-a2a-load A2A_LOAD="--tasks 2000 --store sqlite"`.
A2A_LOAD ?= --tasks 5000 --no-baseline
bench-a2a-load: install postgres
	$(PY) -m benchmarks.a2a_load $(A2A_LOAD)

clean:
	rm -rf $(VENV) $(MCP_SERVERS) $(JS_CLIENTS) $(LLAMA_SERVER_DIR) .pytest_cache .ruff_cache
