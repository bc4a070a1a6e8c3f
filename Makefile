# ccloudpickle - build, test, demo, bench, install.
#
# Always against the system interpreter (/usr/bin/python3), whatever python3
# comes first on PATH. Override PYTHON/PYTHON_CONFIG to build for another.

PYTHON ?= /usr/bin/python3
# A virtualenv's python3-config is its base interpreter's (scripts/sitedir.py).
PYTHON_CONFIG ?= $(or $(wildcard $(PYTHON)-config),$(shell $(PYTHON) scripts/sitedir.py config))
# make install: PREFIX defaults to /usr/local for the system interpreter and
# to the interpreter's sys.prefix otherwise (a pyenv build, a virtualenv:
# programs in its bin/, the module in the site-packages it searches).
# (Computed once, when first used: $(eval) makes it simply expanded.)
PREFIX ?= $(eval PREFIX := $(shell $(PYTHON) scripts/sitedir.py prefix))$(PREFIX)
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Where the interpreter looks for modules under PREFIX (Debian: dist-packages).
PYSITEDIR ?= $(eval PYSITEDIR := $(shell $(PYTHON) scripts/sitedir.py site $(PREFIX)))$(PYSITEDIR)

CC ?= gcc
BUILD ?= build
OPT ?= -O2
CFLAGS ?= $(OPT) -g
WARN = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
       -Wstrict-prototypes -Wshadow
PY_CFLAGS := $(shell $(PYTHON_CONFIG) --includes)
PY_LDFLAGS := $(shell $(PYTHON_CONFIG) --embed --ldflags)
# The programs link libpython statically where the -dev package ships the
# archive (Debian does), non-PIE with exported symbols, as Debian links
# /usr/bin/python3 itself: start-up is ~0.8 ms faster than through the
# shared library. PYTHON_LINK=shared uses libpython3.X.so instead.
PYTHON_LINK ?= static
PY_VAR = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("$(1)") or "")')
PY_STATIC_LIB := $(wildcard $(call PY_VAR,LIBPL)/$(call PY_VAR,LIBRARY))
ifeq ($(PYTHON_LINK)$(if $(PY_STATIC_LIB),yes,no),staticyes)
PROG_LDFLAGS := -no-pie $(PY_STATIC_LIB) $(call PY_VAR,LIBS) \
                $(call PY_VAR,SYSLIBS) $(call PY_VAR,MODLIBS) \
                $(call PY_VAR,LINKFORSHARED)
else
PROG_LDFLAGS := $(PY_LDFLAGS)
endif
EXT_SUFFIX := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
# The standard library the programs use: the built-for Python's own.
PY_HOME := $(shell $(PYTHON) -c 'import sys; print(sys.base_prefix)')
# The Python a build directory's objects are for (headers, ABI, CPK_HOME):
# when another one builds there (make install PYTHON=...), they are rebuilt.
PY_STAMP := $(BUILD)/python.stamp
PY_STAMP_TEXT := $(PY_CFLAGS) $(EXT_SUFFIX) $(PY_HOME)
ifneq ($(PY_STAMP_TEXT),$(shell cat $(PY_STAMP) 2>/dev/null))
$(shell mkdir -p $(BUILD) && echo '$(PY_STAMP_TEXT)' > $(PY_STAMP))
endif
# SAN: flags for both compiling and linking (make sanitize, make coverage).
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden $(WARN) \
             -DCPK_HOME='"$(PY_HOME)"' \
             $(PY_CFLAGS) $(LAYER_INCLUDES) $(SAN) $(CFLAGS)
ALL_LDFLAGS = $(SAN) $(LDFLAGS)

# The layers, lowest first (doc/ARCHITECTURE.md; make check-layers).
SRC_LAYERS := common scan core types engine
LIB_SRC := $(sort $(foreach d,$(SRC_LAYERS),$(wildcard src/$(d)/*.c))) src/module.c
CLI_COMMON_SRC := $(sort $(wildcard cli/common/*.c))
CLI_MAP_SRC := $(sort $(wildcard cli/map/*.c))
CLI_LOAD_SRC := $(sort $(wildcard cli/load/*.c))
CLI_DUMP_SRC := $(sort $(wildcard cli/dump/*.c))
CLI_SRC := $(CLI_COMMON_SRC) $(CLI_MAP_SRC) $(CLI_LOAD_SRC) $(CLI_DUMP_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
# Headers are included by their path under src/ ("core/state.h") or,
# for the programs' own, under cli/ ("common/message.h"). The library's
# objects are compiled with -Isrc alone, as setup.py compiles them for pip
# (an sdist holds no cli/): a header of cli/ included from src/ then fails
# to compile in either build, not only in pip's.
LAYER_INCLUDES := -Isrc -Icli
$(BUILD)/src/%.o: LAYER_INCLUDES := -Isrc
# Each object depends on the headers it includes (-MMD -MP: build/**/*.d).
DEPFLAGS = -MMD -MP

EXT := $(BUILD)/ccloudpickle$(EXT_SUFFIX)
# Companion modules (python/): the Python-level glue of src/engine/glue.c,
# next to
# the extension in the build directory as where it is installed.
COMPANION := $(patsubst python/%,$(BUILD)/%,$(sort $(wildcard python/*.py)))
PROGS := $(BUILD)/cloudpickle-dump $(BUILD)/cloudpickle-load

# tests/<subject>/test_*.c: unit (one file of src/ or cli/ in process),
# module (the Python API), cli (the programs), engines, beyond, docs,
# fuzz, tools (the build's own checks), packaging (make install, pip).
TEST_SRC := $(sort $(wildcard tests/*/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# The slow install and pip tests: make check runs them, make test not.
TEST_PACKAGING := $(filter $(BUILD)/tests/packaging/%,$(TEST_BIN))
TEST_SUPPORT_OBJ := $(BUILD)/tests/support.o
CRITERION_FLAGS := $(shell pkg-config --cflags criterion 2>/dev/null)
CRITERION_LIBS := $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)
# OpenSSL's libcrypto (HMAC-SHA256 of signed pickles, src/scan/envelope.c).
CRYPTO_LIBS := $(shell pkg-config --libs libcrypto 2>/dev/null || echo -lcrypto)

# Keep test objects between runs.
.SECONDARY:

.PHONY: all check test demo bench bench-quick bench-engines memcheck sanitize coverage \
        check-pythons check-install-dirs install install-strip uninstall clean deps lint-man \
        lint-compat check-layers fuzz fuzz-smoke fuzz-strict \
        fuzz-strict-smoke

all: $(EXT) $(COMPANION) $(PROGS)

deps:
	@scripts/install-deps build

$(BUILD)/%.o: %.c $(PY_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# portable.c embeds src/types/portable_source.py as src/types/portable_source.h
# (scripts/embed-py), kept in the tree so that pip builds need no step of
# their own; remade here when the .py changes (test_portable checks they
# agree).
src/types/portable_source.h: src/types/portable_source.py scripts/embed-py
	scripts/embed-py portable_source_py $< > $@.tmp && mv $@.tmp $@
$(BUILD)/src/types/portable.o: src/types/portable_source.h

$(EXT): $(LIB_OBJ)
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $(LIB_OBJ) $(CRYPTO_LIBS)

$(BUILD)/%.py: python/%.py
	@mkdir -p $(@D)
	cp $< $@

# The programs open libcrypto on first use (cli/common/cryptolazy.c), not at start.
# Each program links its own folder and the folders below it.
$(BUILD)/cloudpickle-dump: $(CLI_DUMP_SRC:%.c=$(BUILD)/%.o) \
                           $(CLI_COMMON_SRC:%.c=$(BUILD)/%.o) $(LIB_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PROG_LDFLAGS) -ldl
$(BUILD)/cloudpickle-load: $(CLI_LOAD_SRC:%.c=$(BUILD)/%.o) \
                           $(CLI_MAP_SRC:%.c=$(BUILD)/%.o) \
                           $(CLI_COMMON_SRC:%.c=$(BUILD)/%.o) $(LIB_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PROG_LDFLAGS) -ldl

# Tests ---------------------------------------------------------------------

$(BUILD)/tests/%.o: tests/%.c $(PY_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(CRITERION_FLAGS) -Itests \
	    -DCPK_BUILD_DIR='"$(abspath $(BUILD))"' \
	    -DCPK_SOURCE_DIR='"$(abspath .)"' \
	    -DCPK_PYTHON='"$(PYTHON)"' -c $< -o $@

$(TEST_BIN): $(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_SUPPORT_OBJ) $(LIB_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PY_LDFLAGS) $(CRITERION_LIBS) -lutil \
	    $(CRYPTO_LIBS)
# A unit test of one file of cli/ links that file too.
$(BUILD)/tests/unit/test_callio: $(BUILD)/cli/map/callio.o
$(BUILD)/tests/unit/test_scan_once: $(BUILD)/cli/common/scancheck.o \
    $(BUILD)/cli/common/input.o $(BUILD)/cli/common/message.o \
    $(BUILD)/cli/common/safetext.o
# test_closed_table runs the Python check over the table as JSON, which
# this helper prints (it links the table alone: any CPython can check it).
$(BUILD)/tests/unit/closed_table_json: $(BUILD)/tests/unit/closed_table_json.o \
                                       $(BUILD)/src/scan/pkscan_table.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^
$(BUILD)/tests/unit/test_closed_table: | $(BUILD)/tests/unit/closed_table_json
# test_codewrite counts the pickler's calls of the code writer.
$(BUILD)/tests/unit/test_codewrite: ALL_LDFLAGS += -Wl,--wrap=cpk_code_compact

# Criterion forks a process per test; --jobs keeps both cores busy. Every
# binary runs even after a failure; the summary names each failing one.
# TEST_SKIP: test names (e.g. test_cli_map) this run leaves out;
# TEST_ALL=1 (make check) adds the packaging tests.
TEST_SET = $(if $(TEST_ALL),$(TEST_BIN),$(filter-out $(TEST_PACKAGING),$(TEST_BIN)))
TEST_RUN = $(foreach t,$(TEST_SET),$(if $(filter $(notdir $(t)),$(TEST_SKIP)),,$(t)))
test: all $(TEST_RUN) lint-man lint-compat
	@scripts/run-tests --summary $(BUILD)/tests/summary $(TEST_RUN) -- $(TEST_ARGS)

# Then the fuzz targets for a short time each, where clang's fuzzer
# runtime is installed (install-deps check installs it).
check:
	@scripts/install-deps check
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory TEST_ALL=1 test
	@if scripts/fuzz --can-build; then \
	    $(MAKE) --no-print-directory fuzz-smoke; \
	else \
	    echo "fuzz-smoke: skipped (clang's fuzzer runtime not installed; scripts/install-deps fuzz)"; \
	fi
	@$(MAKE) --no-print-directory fuzz-strict-smoke

# Every include and call points down the layers (doc/ARCHITECTURE.md):
# folders, includes as paths, the objects' symbols (nm), no call cycle,
# src/common and src/scan without Python's headers.
check-layers: all
	@scripts/check-layers $(BUILD) '$(CC)'

lint-man:
	@for m in man/*.1; do mandoc -Tlint -W warning $$m || exit 1; done

# Every CPython-version branch lives in the Python-version layer, so that
# a port to a new version changes these files only (doc/INSTALL.md): a
# PY_VERSION_HEX, a conditional on the version macros or a feature test
# of a CPython name anywhere else in src/ or cli/ fails, naming file:line
# (scripts/lint-compat). tests/ may test versions.
COMPAT_LAYER := src/common/pycompat.h src/common/pycompat.c src/scan/pycompat_scan.h
lint-compat:
	@scripts/lint-compat $(COMPAT_LAYER) -- src cli

# The whole suite under valgrind memcheck (leaks, invalid reads, refcounts
# that free too early). Slow: minutes.
memcheck:
	@scripts/install-deps memcheck
	@$(MAKE) --no-print-directory all $(TEST_BIN)
	@scripts/memcheck $(TEST_BIN)

# The suite with ASan + UBSan in their own build directory: the module,
# the programs and the test binaries instrumented, CPython's objects on
# plain malloc so ASan sees each one (a use after free of a Python object
# is reported, not hidden in a pymalloc pool), with CPython's debug hooks
# (malloc_debug), which poison freed objects: a use after free inside
# libpython, which ASan does not instrument, then crashes too. The uninstrumented
# $(PYTHON) that fresh-process tests run gets the ASan runtime preloaded
# (tests/support.c passes CPK_SAN_PRELOAD on to children as LD_PRELOAD).
# Leak detection is off: an embedded CPython does not free everything at
# exit, and `make memcheck` checks definite leaks with its suppressions.
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined
# Exit status 86 for a report, so no test mistakes one for the program's
# own exit status 1. A huge allocation returns NULL, as malloc does: tests
# give CPython pickles that ask for one, and CPython raises MemoryError.
SAN_ENV = CPK_SAN_PRELOAD=$$($(CC) -print-file-name=libasan.so) \
          ASAN_OPTIONS=detect_leaks=0:exitcode=86:allocator_may_return_null=1 \
          UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86 \
          PYTHONMALLOC=malloc_debug

# The quick suite (make test): the install and pip tests build and
# install with make and pip (setuptools compiles its own, uninstrumented
# extension), so instrumenting them adds nothing but minutes.
sanitize:
	@scripts/install-deps check
	@$(SAN_ENV) $(MAKE) --no-print-directory BUILD=$(BUILD)/sanitize \
	    OPT=-O1 SAN='$(SAN_FLAGS)' test

# Line coverage of src/ and cli/ over the whole suite (test binaries,
# programs and fresh interpreters all write the counters; CPK_COVERAGE makes
# --map workers and fatal-signal handlers write theirs before they end),
# in its own build directory; the per-file table and totals by gcovr.
coverage:
	@scripts/install-deps check coverage
	@if [ -d $(BUILD)/coverage ]; then find $(BUILD)/coverage -name '*.gcda' -delete; fi
	@status=0; $(MAKE) --no-print-directory BUILD=$(BUILD)/coverage OPT=-O0 \
	    SAN='--coverage -DCPK_COVERAGE' test || status=$$?; \
	    scripts/coverage $(BUILD)/coverage && exit $$status

# libFuzzer targets tests/fuzz/fuzz_*.c (the static pickle inspector, the
# envelope parser, ccloudpickle.loads), with ASan + UBSan, FUZZ_SECONDS
# each, one after another (FUZZ_TARGETS: some of them, e.g. "pkscan");
# needs clang and its fuzzer runtime (install-deps fuzz).
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 20
fuzz:
	@scripts/install-deps fuzz
	@PYTHON=$(PYTHON) scripts/fuzz $(FUZZ_SECONDS) $(BUILD) $(FUZZ_TARGETS)
	@$(MAKE) --no-print-directory fuzz-strict

fuzz-smoke:
	@scripts/install-deps fuzz
	@PYTHON=$(PYTHON) scripts/fuzz $(FUZZ_SMOKE_SECONDS) $(BUILD) $(FUZZ_TARGETS)

# Differential fuzzer of the closed-world promise (issue 25):
# tests/fuzz/strict_diff.py generates pickles, asks `cloudpickle-load
# --strict --json` and `loads(allow=[])` for a verdict, and really loads
# each accepted one in a watched child (carried code run, imports not in
# the report, trap modules, patches of what sys.modules reaches, time and
# memory limits) for FUZZ_SECONDS (default 60); findings, minimised, go
# to tests/fuzz/strict_findings/ (STRICT_OUT), exit status 1 if any.
# Replay saved pickles with `$(PYTHON) tests/fuzz/strict_diff.py --replay
# DIR`. `make check` runs fuzz-strict-smoke: 60 seconds with a fixed seed,
# so that a run is a prefix of the same inputs on any machine.
STRICT_OUT ?= tests/fuzz/strict_findings
fuzz-strict: all
	@PYTHONPATH=$(BUILD) $(PYTHON) tests/fuzz/strict_diff.py \
	    --seconds $(FUZZ_SECONDS) --out $(STRICT_OUT) --build $(BUILD) \
	    $(if $(FUZZ_SEED),--seed $(FUZZ_SEED))

STRICT_SMOKE_SEED ?= 20261206
fuzz-strict-smoke: all
	@PYTHONPATH=$(BUILD) $(PYTHON) tests/fuzz/strict_diff.py \
	    --seconds 60 --seed $(STRICT_SMOKE_SEED) \
	    --out $(BUILD)/strict_findings --build $(BUILD)

# The suite against every CPython 3.9-3.13 on the machine (pyenv's with a
# shared libpython, and /usr/bin/python3), each in $(BUILD)/py-VERSION;
# a table at the end, exit status 1 if any failed.
check-pythons:
	@scripts/install-deps check
	@PYTHONS="$(PYTHONS)" scripts/check-pythons $(BUILD)

demo:
	@scripts/install-deps build
	@$(MAKE) --no-print-directory all
	@scripts/demo $(BUILD)

bench:
	@scripts/install-deps bench
	@$(MAKE) --no-print-directory all
	$(PYTHON) scripts/bench --build $(BUILD) $(BENCH_ARGS)

bench-quick:
	@$(MAKE) --no-print-directory bench BENCH_ARGS=--quick

# The engines (doc/ENGINES.md) with stock cloudpickle and ccloudpickle side
# by side: BENCH_ENGINES_ARGS, e.g. --cloudpickle3 DIR --repeats 9.
bench-engines:
	@scripts/install-deps bench check
	@$(MAKE) --no-print-directory all
	$(PYTHON) scripts/bench-engines --build $(BUILD) $(BENCH_ENGINES_ARGS)

# Install for $(PYTHON): the programs in BINDIR, the extension with its
# companion modules (python/*.py), the CCLOUDPICKLE_ALIAS hook
# (python/*.pth) and the type stubs (stubs/: ccloudpickle.pyi beside the
# module and the stub-only package ccloudpickle-stubs) in PYSITEDIR, man
# pages, bash completion, and the dist-info that lists them all for pip.
# doc/INSTALL.md.
INSTALL_PY := $(sort $(wildcard python/*.py))
INSTALL_PTH := $(sort $(wildcard python/*.pth))
PROG_NAMES := cloudpickle-dump cloudpickle-load
# Every file install writes but the dist-info, where it ends up (without
# DESTDIR): uninstall removes them, the dist-info's RECORD lists them.
INSTALLED = $(addprefix $(BINDIR)/,$(PROG_NAMES)) \
            $(addprefix $(MANDIR)/man1/,$(PROG_NAMES:=.1)) \
            $(addprefix $(BASHCOMPDIR)/,$(PROG_NAMES)) \
            $(addprefix $(PYSITEDIR)/,ccloudpickle$(EXT_SUFFIX) \
                ccloudpickle.pyi $(notdir $(INSTALL_PY) $(INSTALL_PTH)) \
                ccloudpickle-stubs/__init__.pyi ccloudpickle-stubs/py.typed)
# The dist-info that makes the install pip's to see, upgrade and uninstall
# (scripts/distinfo.py); one written by pip is pip's to remove.
DISTINFO = $(PYTHON) scripts/distinfo.py

# make cannot quote a path holding white space: refuse one rather than
# install into (or remove from) the pieces it would be split into.
INSTALL_DIRS = $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(PYSITEDIR) \
               $(DESTDIR)$(BASHCOMPDIR)
check-install-dirs:
	@if [ "$(words $(INSTALL_DIRS))" != 4 ]; then \
	    echo "make: DESTDIR, PREFIX, BINDIR, MANDIR, PYSITEDIR and BASHCOMPDIR must not contain white space" >&2; \
	    exit 2; \
	fi

install: check-install-dirs all
	@$(DISTINFO) check '$(DESTDIR)' $(PYSITEDIR)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(PYSITEDIR)/ccloudpickle-stubs $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(PROGS) $(DESTDIR)$(BINDIR)/
	install -m 644 man/cloudpickle-dump.1 man/cloudpickle-load.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(EXT) $(INSTALL_PY) $(INSTALL_PTH) stubs/ccloudpickle.pyi \
	    $(DESTDIR)$(PYSITEDIR)/
	install -m 644 stubs/ccloudpickle.pyi $(DESTDIR)$(PYSITEDIR)/ccloudpickle-stubs/__init__.pyi
	install -m 644 stubs/py.typed $(DESTDIR)$(PYSITEDIR)/ccloudpickle-stubs/
	for p in $(PROG_NAMES); do \
	    install -m 644 completion/cloudpickle $(DESTDIR)$(BASHCOMPDIR)/$$p || exit 1; \
	done
	$(DISTINFO) write '$(DESTDIR)' $(PYSITEDIR) $(INSTALLED)
	@$(PYTHON) scripts/sitedir.py note $(PYSITEDIR)

# install, then strip the programs and the extension module.
install-strip: install
	strip $(addprefix $(DESTDIR)$(BINDIR)/,$(PROG_NAMES))
	strip --strip-unneeded $(DESTDIR)$(PYSITEDIR)/ccloudpickle$(EXT_SUFFIX)
	$(DISTINFO) write '$(DESTDIR)' $(PYSITEDIR) $(INSTALLED)

# A ccloudpickle that pip installed in the same directory (a dist-info make
# did not write) is pip's to remove: taking its files would leave pip's
# record of them behind. So is one install asks to replace.
uninstall: check-install-dirs
	@$(DISTINFO) check '$(DESTDIR)' $(PYSITEDIR)
	rm -f $(addprefix $(DESTDIR),$(INSTALLED)) \
	    $(patsubst python/%.py,$(DESTDIR)$(PYSITEDIR)/__pycache__/%.*.pyc,$(INSTALL_PY))
	rmdir $(DESTDIR)$(PYSITEDIR)/ccloudpickle-stubs 2>/dev/null || true
	$(DISTINFO) remove '$(DESTDIR)' $(PYSITEDIR)

clean:
	rm -rf $(BUILD)

# Header dependencies recorded by the last compile of each object.
-include $(wildcard $(foreach d,src cli tests,$(BUILD)/$(d)/*.d $(BUILD)/$(d)/*/*.d))
