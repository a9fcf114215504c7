# poyo - a command-line stamp animator. `make demo` and `make check` do all set-up.
.DELETE_ON_ERROR:
.SUFFIXES:

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man/man1
# shell completions, where bash-completion, zsh and fish look for them
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
BUILD   ?= build

CC      ?= cc
OPT     ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# warnings are errors with WERROR=1: make check sets it for every build it makes (gcc, clang,
# sanitizers), and so does CI=true
WERROR  ?= $(if $(filter true,$(CI)),1,0)
ifeq ($(WERROR),1)
WARN    += -Werror
endif
PKGS    := stb imagequant libwebp libwebpmux libwebpdemux zlib libdeflate
# headers only, never linked: loaded with dlopen when first needed, WebM's by src/image/avload.c,
# the SVG libraries by src/image/svglib.c and the text libraries by src/image/textlib.c
DL_PKGS := libavformat libavcodec libavutil librsvg-2.0 libxml-2.0 harfbuzz freetype2 fontconfig
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) $(DL_PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# threads as the compiler provides them, at compile and link: POSIX threads (the renderer,
# batch workers) with -pthread, and OpenMP, with which libimagequant parallelises
# (src/image/quantize.c sets its thread count), with -fopenmp: libgomp under gcc,
# libomp under clang (Debian's libomp-dev)
THREADS := -pthread -fopenmp
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -Isrc
CFLAGS  += $(OPT) $(WARN) $(THREADS) -MMD -MP $(SAN_FLAGS)
LDFLAGS += $(THREADS) $(SAN_FLAGS)
LDLIBS  += $(PKG_LIBS) -lgif -lm

# src/ is one folder per layer (src/README.md): util, geom, image, sim, cli
SRCS     := $(wildcard src/*/*.c)
LIB_SRCS := $(filter-out src/cli/main.c,$(SRCS))
LIB_OBJS := $(LIB_SRCS:src/%.c=$(BUILD)/obj/%.o)
TEST_SRCS := $(wildcard tests/unit/test_*.c)
TEST_BINS := $(filter-out $(BUILD)/tests/test_main,$(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%))
# each tool is one .c linked with the helpers they share (tests/tools/toolutil.c)
TOOL_SRCS := $(filter-out tests/tools/toolutil.c,$(wildcard tests/tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tools/%)
TOOL_UTIL := $(BUILD)/tools/toolutil.o

.PHONY: all completions deps demo check check-layers check-unit check-cli check-fuzz check-clang check-san coverage test-bins golden bench bench-deps fuzz install uninstall clean FORCE

all: $(BUILD)/poyo

# ---- dependencies: Debian packages found with pkg-config ------------------
# poyo text: HarfBuzz, FreeType and fontconfig, a Japanese font and a colour emoji font;
# make check also compiles with clang (make fuzz too), which finds OpenMP in libomp-dev
DEB_PKGS := libstb-dev libgif-dev libimagequant-dev libwebp-dev zlib1g-dev libdeflate-dev librsvg2-dev libxml2-dev \
            libavcodec-dev libavformat-dev libavutil-dev libharfbuzz-dev libfreetype-dev libfontconfig-dev \
            fonts-ipaexfont-gothic fonts-noto-color-emoji pkg-config strace zsh fish clang libomp-dev
deps:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="$(DEB_PKGS)"; \
	if [ -z "$$missing" ]; then \
	  pkg-config --exists stb || missing="$$missing libstb-dev"; \
	  pkg-config --exists imagequant || missing="$$missing libimagequant-dev"; \
	  pkg-config --exists libwebp libwebpmux libwebpdemux || missing="$$missing libwebp-dev"; \
	  pkg-config --exists zlib || missing="$$missing zlib1g-dev"; \
	  pkg-config --exists libdeflate || missing="$$missing libdeflate-dev"; \
	  pkg-config --exists librsvg-2.0 || missing="$$missing librsvg2-dev"; \
	  pkg-config --exists libxml-2.0 || missing="$$missing libxml2-dev"; \
	  pkg-config --exists libavcodec || missing="$$missing libavcodec-dev"; \
	  pkg-config --exists libavformat || missing="$$missing libavformat-dev"; \
	  pkg-config --exists libavutil || missing="$$missing libavutil-dev"; \
	  pkg-config --exists harfbuzz || missing="$$missing libharfbuzz-dev"; \
	  pkg-config --exists freetype2 || missing="$$missing libfreetype-dev"; \
	  pkg-config --exists fontconfig || missing="$$missing libfontconfig-dev"; \
	  [ -f /usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf ] || missing="$$missing fonts-ipaexfont-gothic"; \
	  [ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || missing="$$missing fonts-noto-color-emoji"; \
	  [ -f /usr/include/gif_lib.h ] || missing="$$missing libgif-dev"; \
	  command -v strace >/dev/null 2>&1 || missing="$$missing strace"; \
	  command -v zsh >/dev/null 2>&1 || missing="$$missing zsh"; \
	  command -v fish >/dev/null 2>&1 || missing="$$missing fish"; \
	  command -v clang >/dev/null 2>&1 || missing="$$missing clang"; \
	  printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n' | \
	    clang -fopenmp -x c -o /dev/null - 2>/dev/null || missing="$$missing libomp-dev"; \
	fi; \
	$(install_missing)

# installs the Debian packages named in $$missing, as root or with sudo, else says how
define install_missing
if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
	    echo "installing:$$missing"; \
	    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "poyo needs these Debian packages: run  sudo apt-get update && sudo apt-get install$$missing" >&2; exit 1; \
	  fi; \
	fi
endef

# the peers make bench races poyo against: gifsicle, ffmpeg, ImageMagick and
# cgif's GIF writer (libcgif-dev), installed as deps installs its packages
bench-deps:
	@missing=""; \
	command -v gifsicle >/dev/null 2>&1 || missing="$$missing gifsicle"; \
	command -v ffmpeg >/dev/null 2>&1 || missing="$$missing ffmpeg"; \
	command -v convert >/dev/null 2>&1 || missing="$$missing imagemagick"; \
	pkg-config --exists cgif 2>/dev/null || missing="$$missing libcgif-dev"; \
	$(install_missing)

# ---- build -----------------------------------------------------------------
$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/libpoyo.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/poyo: $(BUILD)/obj/cli/main.o $(BUILD)/libpoyo.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/test_main.c tests/unit/test.h $(BUILD)/libpoyo.a | $(BUILD)/tests
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) -Itests/unit $(CFLAGS) -Wno-missing-prototypes -o $@ $< tests/unit/test_main.c $(BUILD)/libpoyo.a $(LDFLAGS) $(LDLIBS)

# mkwebm writes test files with libav* itself
# gifbench races cgif's GIF writer too when libcgif-dev is installed (make bench says when not),
# and is built again when it comes or goes (its flag file changes only then)
CGIF := $(shell pkg-config --exists cgif 2>/dev/null && echo y || echo n)
ifeq ($(CGIF),y)
$(BUILD)/tools/gifbench: CPPFLAGS += -DHAVE_CGIF
$(BUILD)/tools/gifbench: LDLIBS += $(shell pkg-config --libs cgif)
endif
$(BUILD)/tools/cgif.flag: FORCE | $(BUILD)/tools
	@echo $(CGIF) | cmp -s - $@ || echo $(CGIF) >$@
$(BUILD)/tools/gifbench: $(BUILD)/tools/cgif.flag
FORCE:
$(BUILD)/tools/mkwebm: LDLIBS += $(shell pkg-config --libs $(DL_PKGS) 2>/dev/null)
$(TOOL_UTIL): tests/tools/toolutil.c | $(BUILD)/tools
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<
$(BUILD)/tools/%: tests/tools/%.c $(TOOL_UTIL) $(BUILD)/libpoyo.a | $(BUILD)/tools
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(TOOL_UTIL) $(BUILD)/libpoyo.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_anim.h tests/fuzz/replay.c $(BUILD)/libpoyo.a | $(BUILD)/fuzz
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $< tests/fuzz/replay.c $(BUILD)/libpoyo.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests $(BUILD)/tools $(BUILD)/fuzz:
	mkdir -p $@

test-bins: $(BUILD)/poyo $(TEST_BINS) $(TOOL_BINS)

# the completion scripts, written by poyo itself from its option tables (src/cli/options.c)
COMPLETIONS := $(BUILD)/completion/poyo.bash $(BUILD)/completion/_poyo $(BUILD)/completion/poyo.fish
completions: $(COMPLETIONS)
$(BUILD)/completion/poyo.bash: $(BUILD)/poyo
	@mkdir -p $(@D) && $(BUILD)/poyo --completion bash >$@
$(BUILD)/completion/_poyo: $(BUILD)/poyo
	@mkdir -p $(@D) && $(BUILD)/poyo --completion zsh >$@
$(BUILD)/completion/poyo.fish: $(BUILD)/poyo
	@mkdir -p $(@D) && $(BUILD)/poyo --completion fish >$@

# ---- tests -----------------------------------------------------------------
# check: the whole suite with warnings as errors, the unit tests again built by clang, then
# the whole suite again under AddressSanitizer + UBSan.
check: deps
	@$(MAKE) --no-print-directory WERROR=1 check-layers check-unit check-cli
	@$(MAKE) --no-print-directory WERROR=1 check-clang
	@$(MAKE) --no-print-directory WERROR=1 check-san

# the layers of src/README.md: no include of a higher layer, no printing or exiting below cli/
check-layers: $(LIB_OBJS)
	@sh tests/layers.sh src $(BUILD)/obj

check-unit: $(TEST_BINS) check-fuzz
	@sh tests/run-unit.sh $(TEST_BINS)

# the fuzz targets replayed over the kept crashers and the seed inputs
FUZZ_TARGETS := pipeline options png gif webp webm apng scene path
check-fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/replay_%) $(BUILD)/tools/mkpng
	@sh tests/fuzz/seeds.sh $(BUILD)/tools/mkpng $(BUILD)/fuzz/seeds >/dev/null && \
	for t in $(FUZZ_TARGETS); do \
	  $(BUILD)/fuzz/replay_$$t $(BUILD)/fuzz/seeds/$$t/* $$(ls tests/fuzz/regress/$$t/* 2>/dev/null) || exit 1; \
	done

# METER_BUILD: the build whose motion meter (tests/tools/motionstats) the CLI tests run
METER_BUILD ?= $(BUILD)
check-cli: $(BUILD)/poyo $(TOOL_BINS)
	@POYO=$(abspath $(BUILD)/poyo) TOOLS=$(abspath $(BUILD)/tools) MOTIONSTATS=$(abspath $(METER_BUILD)/tools/motionstats) \
	  sh tests/run-cli.sh

# every program compiled by clang with its warnings as errors, and the unit tests run
check-clang:
	@$(MAKE) --no-print-directory BUILD=build-clang CC=clang WERROR=1 test-bins check-unit

# (tests/lsan.supp names leaks inside libraries, each with the library and why). The CLI
# tests measure motion with the plain build's meter: it simulates each clip again with its own
# copy of the library to know where every pixel went, which sanitized took half of their time;
# the frames it measures are the sanitized poyo's
check-san:
	@$(MAKE) --no-print-directory $(BUILD)/tools/motionstats
	@LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 $(MAKE) --no-print-directory BUILD=build-san OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" METER_BUILD=$(BUILD) check-unit check-cli

# ---- line coverage (gcov, which comes with gcc) ------------------------------
# coverage: an instrumented build in build-cov runs the unit and CLI tests from
# fresh counters, then tests/coverage.sh prints each source file's line coverage
# (libgcov's own complaints, such as a counter file it cannot write under a
# test's ulimit -f, go to build-cov/gcov-errors.log, not into the tests' stderr)
COV_FLAGS := --coverage -fprofile-update=atomic
coverage: deps
	@$(MAKE) --no-print-directory BUILD=build-cov OPT="-O0 -g" SAN_FLAGS="$(COV_FLAGS)" build-cov/poyo test-bins
	@find build-cov -name '*.gcda' -delete; rm -f build-cov/gcov-errors.log
	@status=0; GCOV_ERROR_FILE=$(CURDIR)/build-cov/gcov-errors.log \
	  $(MAKE) --no-print-directory BUILD=build-cov OPT="-O0 -g" SAN_FLAGS="$(COV_FLAGS)" \
	  check-unit check-cli || status=1; sh tests/coverage.sh build-cov/obj $(SRCS) && exit $$status

# ---- the main job on the shipped samples ------------------------------------
demo: deps
	@$(MAKE) --no-print-directory $(BUILD)/poyo
	@sh samples/demo.sh $(BUILD)/poyo

# rewrite the golden hashes from what poyo makes now (say why in the commit)
golden: $(BUILD)/poyo $(BUILD)/tools/animinfo
	@sh tests/golden/update.sh $(BUILD)/poyo $(BUILD)/tools

bench: deps bench-deps
	@$(MAKE) --no-print-directory $(BUILD)/poyo $(TOOL_BINS)
	@sh tests/bench/bench.sh $(BUILD)/poyo $(BUILD)/tools
	@echo && sh tests/bench/budget.sh $(BUILD)/poyo

# libFuzzer over each target in turn: make fuzz FUZZ_SECONDS=600 [FUZZ_TARGETS="png gif"]
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
fuzz: deps
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPT="-O1 -g" SAN_FLAGS="$(FUZZ_FLAGS)" \
	  build-fuzz/libpoyo.a build-fuzz/tools/mkpng
	@sh tests/fuzz/seeds.sh build-fuzz/tools/mkpng build-fuzz/seeds
	@for t in $(FUZZ_TARGETS); do \
	  clang $(CPPFLAGS) $(PKG_CFLAGS) -O1 -g $(THREADS) -fsanitize=fuzzer,address,undefined -o build-fuzz/fuzz_$$t \
	    tests/fuzz/fuzz_$$t.c build-fuzz/libpoyo.a $(LDLIBS) || exit 1; \
	  mkdir -p build-fuzz/corpus/$$t build-fuzz/crashes; \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
	    -artifact_prefix=build-fuzz/crashes/$$t- -print_final_stats=1 \
	    build-fuzz/corpus/$$t build-fuzz/seeds/$$t 2>&1 | tail -n 12 || exit 1; \
	done

install: $(BUILD)/poyo $(COMPLETIONS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
	  $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(BUILD)/poyo $(DESTDIR)$(BINDIR)/poyo
	install -m 644 man/poyo.1 $(DESTDIR)$(MANDIR)/poyo.1
	install -m 644 $(BUILD)/completion/poyo.bash $(DESTDIR)$(BASHCOMPDIR)/poyo
	install -m 644 $(BUILD)/completion/_poyo $(DESTDIR)$(ZSHCOMPDIR)/_poyo
	install -m 644 $(BUILD)/completion/poyo.fish $(DESTDIR)$(FISHCOMPDIR)/poyo.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/poyo $(DESTDIR)$(MANDIR)/poyo.1 $(DESTDIR)$(BASHCOMPDIR)/poyo \
	  $(DESTDIR)$(ZSHCOMPDIR)/_poyo $(DESTDIR)$(FISHCOMPDIR)/poyo.fish

clean:
	rm -rf build build-clang build-san build-fuzz build-cov

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/tests/*.d $(BUILD)/tools/*.d)
