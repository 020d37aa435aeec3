PY      := python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
TORCH   := torch==2.13.0

.PHONY: venv test test-slow train bench lint demo

venv: $(STAMP)

# torch is installed first with the exact pin so that the local CPU wheel is used;
# otherwise resolving '.[train]' could pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install --upgrade pip
	$(VPY) -m pip install '$(TORCH)'
	$(VPY) -m pip install -e '.[train,dev]'
	touch $(STAMP)

test: venv
	$(VPY) -m pytest -n 2 -q

# exit code 5 (no slow tests collected) is not an error here
test-slow: venv
	$(VPY) -m pytest -n 2 -q -m slow || [ $$? -eq 5 ]

train: venv
	$(VPY) -m training.train --config configs/default.yaml

bench: venv
	@set -e; for f in benchmarks/*.py; do \
	  [ -e "$$f" ] || { echo "no benchmarks"; break; }; \
	  echo "== $$f"; $(VPY) "$$f"; \
	done

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy perikles_env/engine

demo: venv
	$(VPY) -m perikles_env.engine.demo
