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

# numba's on-disk JIT cache lives in the tree (gitignored), not next to site-packages.
NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache
export NUMBA_CACHE_DIR

.PHONY: venv test book check-html bench bench-deps experiments browser-deps clean distclean

venv: $(STAMP)

# qlib/__init__.py is a prerequisite too: an editable install made before the package
# existed maps nothing, and `import qlib` then finds an empty namespace package.
$(STAMP): pyproject.toml $(CONSTRAINTS) $(wildcard qlib/__init__.py)
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade -c $(CONSTRAINTS) pip
	$(PIP) install -c $(CONSTRAINTS) -e '.[book,test]'
	touch $@

# Unit tests, then the notebooks under nbval (lax: only cells marked
tagged nbval-check-output are compared with their stored output).
test: venv
	MPLBACKEND=$(MPL_SCRIPT) $(VPY) -m pytest tests --ignore=tests/test_book_html.py
	MPLBACKEND=$(MPL_KERNEL) $(VPY) -m pytest --nbval-lax notebooks

# --all: rebuild every page, so every notebook is re-executed against the current
# qlib even when the notebook itself did not change (Sphinx would skip it otherwise).
book: export MPLBACKEND = $(MPL_KERNEL)
book: venv
	$(VENV)/bin/jupyter-book build --all . -W -n --keep-going
	@echo "Book: $(CURDIR)/_build/html/index.html"

# Open the built book in headless Chromium: every page present, figures and math
# rendered; screenshots of two chapters go to _build/screenshots/.
check-html: venv browser-deps
	QLIB_REQUIRE_HTML=1 $(VPY) -m pytest tests/test_book_html.py

bench-deps: $(BENCH_STAMP)

$(BENCH_STAMP): $(STAMP)
	$(PIP) install -c $(CONSTRAINTS) -e '.[bench]'
	touch $@

bench: export MPLBACKEND = $(MPL_SCRIPT)
bench: bench-deps
	$(VPY) benchmarks/run.py $(BENCH_ARGS)

# The measurements the Experiments chapter reads (benchmarks/results/experiments.json).
experiments: export MPLBACKEND = $(MPL_SCRIPT)
experiments: venv
	$(VPY) benchmarks/experiments.py

# Debian's Chromium + ChromeDriver for headless screenshots of the HTML book (needs root).
browser-deps:
	@if [ -x /usr/bin/chromium ] && fc-list 2>/dev/null | grep -qi "Noto.*CJK"; then echo "chromium and CJK fonts already installed"; \
	else apt-get update && apt-get install -y chromium chromium-driver fonts-noto-cjk; fi

# Build outputs and caches; keeps .venv (see distclean).
clean:
	rm -rf _build .pytest_cache .hypothesis .numba_cache
	find . -path ./$(VENV) -prune -o -type d \( -name __pycache__ -o -name .ipynb_checkpoints \) -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) *.egg-info
