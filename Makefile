# qlib and its book: build, test and benchmark entry points.
# Everything runs inside .venv, created from requirements/constraints.txt.

PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
PIP    := $(VPY) -m pip
CONSTRAINTS := requirements/constraints.txt
STAMP       := $(VENV)/.stamp
BENCH_STAMP := $(VENV)/.bench-stamp

# Headless matplotlib. Plain scripts and unit tests use Agg; Jupyter kernels (nbval, the
# book) must use the inline backend instead: with MPLBACKEND=Agg a kernel's plt.show()
# emits no image and figures silently vanish from the book.
MPL_SCRIPT = Agg
MPL_KERNEL = module://matplotlib_inline.backend_inline

# numba's on-disk JIT cache lives in the tree (gitignored), not next to site-packages, in a folder
# named by a hash of qlib's sources: numba checks only the timestamp of a cached function's own file, so a
# change to a function inlined from another module would otherwise leave its callers' cache stale.
QLIB_SOURCES_HASH := $(shell cat $(sort $(wildcard qlib/*.py qlib/*/*.py qlib/*/*/*.py)) | sha1sum | cut -c1-12)
NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache/$(QLIB_SOURCES_HASH)
export NUMBA_CACHE_DIR

.PHONY: results check-results venv test test-fast book lab check-html bench bench-qubo bench-deps bench-boards sgt-deps experiments browser-deps clean distclean

venv: $(STAMP)

# qlib/__init__.py is a prerequisite too: an editable install made before the package
# existed maps nothing, and `import qlib` then finds an empty namespace package.
$(STAMP): pyproject.toml $(CONSTRAINTS) $(wildcard qlib/__init__.py)
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade -c $(CONSTRAINTS) pip
	$(PIP) install -c $(CONSTRAINTS) -e '.[book,test]'
	touch $@

# Unit tests, then the notebooks under nbval (lax: only cells
# tagged nbval-check-output are compared with their stored output).
test: venv
	MPLBACKEND=$(MPL_SCRIPT) $(VPY) -m pytest tests --ignore=tests/test_book_html.py --ignore=tests/test_lab.py
	MPLBACKEND=$(MPL_KERNEL) $(VPY) -m pytest --nbval-lax notebooks

# The fast lane, for development: the unit tests under a second each (tests/slow.txt lists the
# others), no notebooks; under 2 minutes on 2 cores.  `make test` (what CI runs) keeps everything.
test-fast: venv
	MPLBACKEND=$(MPL_SCRIPT) $(VPY) -m pytest tests -m "not slow and not gpu" --ignore=tests/test_book_html.py --ignore=tests/test_lab.py

# --all: rebuild every page, so every notebook is re-executed against the current
# qlib even when the notebook itself did not change (Sphinx would skip it otherwise).
book: export MPLBACKEND = $(MPL_KERNEL)
book: venv
	$(VENV)/bin/jupyter-book build --all . -W -n --keep-going
	@echo "Book: $(CURDIR)/_build/html/index.html"

# JupyterLab on the chapters (notebooks/), in .venv, with the book's kernel settings
# (inline matplotlib, numba's cache in the tree).  LAB_ARGS="--port 8890 --no-browser".
# As root (a container) JupyterLab needs --allow-root.
lab: export MPLBACKEND = $(MPL_KERNEL)
lab: venv
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# Open the built book in headless Chromium: every page of _toc.yml loads, with numbered
# figures, typeset math, no raw MyST, no NBVAL text and no error output; a screenshot of
# every page goes to _build/screenshots/.  Then JupyterLab in Chromium (tests/test_lab.py):
# a chapter's widget renders and redraws when its slider moves.
check-html: venv browser-deps
	QLIB_REQUIRE_HTML=1 $(VPY) -m pytest tests/test_book_html.py tests/test_lab.py

# The bench's Python packages (peers, python-sat) and Debian's sgt-puzzles (sgt-deps), which
# benchmarks/make_boards.py needs to make the user boards of benchmarks/boards/.
bench-deps: $(BENCH_STAMP) sgt-deps

$(BENCH_STAMP): $(STAMP)
	$(PIP) install -c $(CONSTRAINTS) -e '.[bench]'
	touch $@

# Simon Tatham's puzzles (sgt-loopy, sgt-pattern in /usr/games) from Debian (needs root).
sgt-deps:
	@if [ -x /usr/games/sgt-loopy ] && [ -x /usr/games/sgt-pattern ]; then echo "sgt-puzzles already installed"; \
	else apt-get update && apt-get install -y sgt-puzzles; fi

# The user set (benchmarks/boards/, shipped): 5 seeds, a 60 s cap, the tail of every row
# (results/user.json and .md).  BENCH_ARGS="" runs the book set (results/latest.*), "--set all" both.
# It needs no sgt-puzzles: the boards are in the tree.
BENCH_ARGS ?= --set user --seeds 5 --cap 60
bench: export MPLBACKEND = $(MPL_SCRIPT)
bench: $(BENCH_STAMP)
	$(VPY) benchmarks/run.py $(BENCH_ARGS)

# qlib's annealing against dwave-samplers and OpenJij on plain QUBO / HUBO models (spin glasses, max-cut,
# NAE-3SAT, frustrated loops, random cubic / quartic HUBOs): updates/s at equal sweeps, time to target,
# 1 vs 2 threads (results/qubo.json and .md; targets cached in results/qubo_reference.json).
# About 25 min on 2 cores (plus about 7 min once when results/qubo_reference.json is missing);
# QUBO_ARGS="--quick" (about 20 s), "--only 'sg2d-*'", "--reference".
QUBO_ARGS ?=
bench-qubo: export MPLBACKEND = $(MPL_SCRIPT)
bench-qubo: $(BENCH_STAMP)
	$(VPY) benchmarks/qubo.py $(QUBO_ARGS)

# Remake benchmarks/boards/ and its manifest (about 20 min on 2 cores; BOARDS_ARGS="--only loopy").
bench-boards: export MPLBACKEND = $(MPL_SCRIPT)
bench-boards: bench-deps
	nice -n 19 $(VPY) benchmarks/make_boards.py $(BOARDS_ARGS)

# The measurements the Experiments chapter reads (benchmarks/results/experiments.json): a sweep
# of (board, method, seed) runs on a Dask LocalCluster, one process per core, one numba thread
# each (qlib.sweep).  EXPERIMENTS_ARGS="--serial", "--scheduler tcp://host:8786" or "--seeds 10".
experiments: export MPLBACKEND = $(MPL_SCRIPT)
experiments: venv
	$(VPY) benchmarks/experiments.py $(EXPERIMENTS_ARGS)

# Every stored result the book and the notes read, remade with this checkout's code (about 36 min on
# 2 cores): the experiments, the user and book sets of the puzzle bench, the QUBO bench and the
# single-loop QUBO's seeds.  Each file
# records its commit and a fingerprint of the code it measured; `make check-results` fails on a
# stale one.
results: export MPLBACKEND = $(MPL_SCRIPT)
results: $(BENCH_STAMP)
	$(VPY) benchmarks/experiments.py
	$(VPY) benchmarks/run.py --set user --seeds 5 --cap 60
	$(VPY) benchmarks/run.py --set book
	$(VPY) benchmarks/qubo.py
	$(VPY) benchmarks/single_loop.py

# Whether every stored result was measured with this checkout's code (its fingerprint, see
# benchmarks/provenance.py): run before resolving an issue that changed a measured module, after
# `make results`.  `make test` checks only that each records its commit and fingerprint.
check-results: venv
	QLIB_CHECK_RESULTS=1 $(VPY) -m pytest -q tests/test_stored_results.py

# Debian's Chromium + ChromeDriver for headless screenshots of the HTML book (needs root).
browser-deps:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && fc-list 2>/dev/null | grep -qi "Noto.*CJK"; then echo "chromium, chromedriver and CJK fonts already installed"; \
	else apt-get update && apt-get install -y chromium chromium-driver fonts-noto-cjk; fi

# Build outputs and caches; keeps .venv (see distclean).
clean:
	rm -rf _build .pytest_cache .hypothesis .numba_cache
	find . -path ./$(VENV) -prune -o -type d \( -name __pycache__ -o -name .ipynb_checkpoints \) -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) *.egg-info
