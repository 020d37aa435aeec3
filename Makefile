PY      := python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
TORCH   := torch==2.13.0
NATIVE  := $(VENV)/.native-built
BUILD_TOOLS := 'scikit-build-core>=0.10' 'nanobind>=2.0'

.PHONY: venv native generate test test-slow test-rllib test-openspiel test-interop train network bench lint demo

venv: $(STAMP) $(NATIVE)

# torch is installed first with the exact pin so that the local CPU wheel is used;
# otherwise resolving '.[train]' could pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install --upgrade pip
	$(VPY) -m pip install '$(TORCH)'
	$(VPY) -m pip install $(BUILD_TOOLS)
	$(VPY) -m pip install --no-build-isolation -e '.[train,dev,render,web]'
	touch $(STAMP) && touch $(NATIVE)

# The C++ engine core (perikles_env._native, docs/native.md), built by scikit-build-core into
# build/ and rebuilt incrementally when its sources change. Without a C++ compiler the
# install still succeeds and the Python engine is used.
$(NATIVE): $(STAMP) CMakeLists.txt $(wildcard native/*/*.hpp native/*/*.cpp native/*/*/*.hpp native/*/*/*.cpp)
	$(VPY) -m pip install --no-deps --no-build-isolation -e .
	touch $(NATIVE)

native: $(NATIVE)

# Every generated file, from its one declaration (docs/native.md, "One declaration of the
# state"); then `make native` rebuilds the core if a native/*/generated header changed.
generate: $(STAMP)
	$(VPY) scripts/gen_native.py
	$(VPY) scripts/gen_params.py
	$(VPY) scripts/gen_annotations.py
	$(VPY) scripts/gen_observation_docs.py --write
	$(VPY) scripts/gen_action_docs.py --write

test: venv
	$(VPY) -m pytest -n 2 --dist worksteal -q

# exit code 5 (no slow tests collected) is not an error here
test-slow: venv
	$(VPY) -m pytest -n 2 -q -m slow || [ $$? -eq 5 ]

# An optional extra's requirements, installed as pyproject.toml lists them (torch stays
# pinned; the main install is not redone), once: .venv/.<extra>-installed records it.
$(VENV)/.%-installed: $(STAMP) pyproject.toml
	$(VPY) -c "import subprocess, sys, tomllib; \
	  deps = tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['$*']; \
	  subprocess.check_call([sys.executable, '-m', 'pip', 'install', *deps])"
	touch $@

# every RLlib test, the slow end-to-end run included (~1-2 min on 2 cores)
test-rllib: $(VENV)/.rllib-installed
	$(VPY) -m pytest -q -p no:xdist tests/rllib -m 'slow or not slow'

# the OpenSpiel game's tests, IS-MCTS's win-rate game series included (~1 min on 2 cores)
test-openspiel: $(VENV)/.openspiel-installed
	$(VPY) -m pytest -q -p no:xdist tests/openspiel -m 'slow or not slow'

# TorchRL and Tianshou driving the PettingZoo env, docs/ecosystem.md's examples (~1 min)
test-interop: $(VENV)/.interop-installed
	$(VPY) -m pytest -q -p no:xdist tests/interop -m 'slow or not slow'

train: venv
	$(VPY) -m training.train --config configs/default.yaml

# the shipped search network rebuilt from nothing, stage by stage (hours on 2 cores; run it
# again to go on after an interruption): docs/training.md, "The shipped network"
network: venv
	$(VPY) -m perikles_env.launch.rebuild_net --out runs/network

bench: venv
	@set -e; for f in benchmarks/*.py; do \
	  [ -e "$$f" ] || { echo "no benchmarks"; break; }; \
	  echo "== $$f"; $(VPY) "$$f"; \
	done

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy perikles_env/engine

demo: venv
	$(VPY) -m perikles_env.demo
