# Two commands for a fresh machine: `make demo` and `make test`.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
comma := ,
EXTRAS ?= openai,local,mcp,a2a,otel,durable
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

# llama.cpp: a lean CPU build (same speed and outputs as the default, a third of the build time).
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
# With the default OpenMP policy, spinning threads starve every other process on small machines.
export OMP_WAIT_POLICY ?= passive

# MCP servers nobody here wrote, for the tests: pinned, installed into a local folder.
MCP_SERVERS := .mcp-servers
EVERYTHING := @modelcontextprotocol/server-everything@2026.8.31
EVERYTHING_STAMP := $(MCP_SERVERS)/.installed-$(subst /,-,$(EVERYTHING))

.PHONY: install mcp-servers postgres demo durable-demo test lint typecheck unit bench clean

install: $(STAMP)

mcp-servers: $(EVERYTHING_STAMP)

# The tests start their own PostgreSQL server from Debian's binaries (never a system service).
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
		echo "Installing Debian's postgresql package for the tests."; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq postgresql >/dev/null; }

$(EVERYTHING_STAMP):
	npm install --prefix $(MCP_SERVERS) --no-save --no-audit --no-fund --loglevel=error $(EVERYTHING)
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

unit: install mcp-servers postgres
	$(VENV)/bin/pytest

test: lint typecheck unit

bench: install
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) $(MCP_SERVERS) .pytest_cache .ruff_cache
