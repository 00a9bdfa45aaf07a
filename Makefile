# envshim - GNU make, no configure step.  Packagers: PREFIX=... DESTDIR=...
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
LIBDIR		?= $(PREFIX)/lib
LIBEXECDIR	?= $(PREFIX)/libexec
MANDIR		?= $(PREFIX)/share/man
DOCDIR		?= $(PREFIX)/share/doc/envshim
SYSCONFDIR	?= /etc
VERSION		:= 0.1.0

CC		?= cc
CFLAGS		?= -O2 -g
B		:= build

ES_WARN		:= -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wvla \
		   -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith \
		   -Wimplicit-fallthrough
ES_CFLAGS	:= -std=c11 -D_GNU_SOURCE -Iinclude $(ES_WARN) \
		   -fstack-protector-strong -fno-common -MMD -MP \
		   -DES_VERSION='"$(VERSION)"' \
		   -DES_LIBDIR='"$(LIBDIR)/envshim"' \
		   -DES_LIBEXECDIR='"$(LIBEXECDIR)/envshim"' \
		   -DES_SYSCONFDIR='"$(SYSCONFDIR)"'
ES_LDFLAGS	:= -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack

# One folder per part (docs/design.md), each a wildcard: a new file in a
# room needs no edit here.  Dependencies run one way: cli -> preload and
# sandbox -> engine.
#   engine	the policy engine (pure) and reading policy files
#   preload	libenvshim.so: hooks, constructor, launch root, launch planning
#   sandbox	envshim-sandbox, the helper
#   cli		the envshim command
room		= $(sort $(wildcard shim/$(1)/*.c))
ENGINE_SRCS	:= $(filter-out %/gen_names_ix.c,$(call room,engine))
ENGINE		:= $(patsubst shim/%.c,%,$(ENGINE_SRCS))
PRELOAD		:= $(patsubst shim/%.c,%,$(call room,preload))
SANDBOX		:= $(patsubst shim/%.c,%,$(call room,sandbox))
CLI		:= $(patsubst shim/%.c,%,$(call room,cli))
# What the command takes from the other rooms: --contain computes the
# launch root's state (root, launch, session), doctor asks the kernel for
# Landlock and looks for the hide list's entries on this machine.
CLI_USES	:= preload/root preload/launch preload/session sandbox/landlock sandbox/expand

LIB_OBJS	:= $(addprefix $(B)/pic/,$(addsuffix .o,$(PRELOAD) $(ENGINE)))
CMD_OBJS	:= $(addprefix $(B)/obj/,$(addsuffix .o,$(CLI) $(CLI_USES) $(ENGINE)))
SBX_UNITS	:= $(SANDBOX) $(ENGINE)
CORE_OBJS	:= $(addprefix $(B)/obj/,$(addsuffix .o,$(ENGINE)))

UNIT_SRCS	:= $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
ASAN_BINS	:= $(patsubst tests/unit/%.c,$(B)/asan/%,$(UNIT_SRCS))
PROG_SRCS	:= $(sort $(wildcard tests/progs/*.c))
PROG_BINS	:= $(patsubst tests/progs/%.c,$(B)/progs/%,$(PROG_SRCS))
ASAN_FLAGS	:= -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=all

PRODUCTS	:= $(B)/libenvshim.so $(B)/envshim $(B)/envshim-sandbox

all: $(PRODUCTS)

# The helper links statically: no ld.so start-up, no preload, no NSS
# (docs/design.md).  Against musl when its static libc is there (deps.sh
# installs musl-dev): glibc's start-up probes the CPU with cpuid, which
# traps on a VM, ~0.8 ms a sandboxed shell.  Else glibc's -static-pie.
# ASan needs the dynamic loader: asan-bins sets SBX_STATIC empty.
SBX_STATIC	?= 1
MULTIARCH	:= $(shell $(CC) -print-multiarch 2>/dev/null)
MUSL_TRIPLE	:= $(patsubst %-gnu,%-musl,$(MULTIARCH))
MUSL		:= /usr/lib/$(MUSL_TRIPLE)
SBX_MUSL	?= $(if $(SBX_STATIC),$(if $(MULTIARCH),$(wildcard $(MUSL)/rcrt1.o)))
SBX_OBJS	:= $(addprefix $(B)/$(if $(SBX_MUSL),musl,obj)/,$(addsuffix .o,$(SBX_UNITS)))
# musl's headers, the compiler's own, then the kernel's uapi (kinc).
MUSL_INC	= -nostdinc -isystem /usr/include/$(MUSL_TRIPLE) \
		  -isystem $(shell $(CC) -print-file-name=include) -idirafter $(B)/musl/kinc
ifneq ($(SBX_MUSL),)
# The start files by name: musl-gcc's specs cannot link -static-pie.
SBX_LINK	= -static-pie -nostdlib $(MUSL)/rcrt1.o $(MUSL)/crti.o \
		  $(shell $(CC) -print-file-name=crtbeginS.o)
SBX_LIBS	= $(MUSL)/libc.a $(shell $(CC) -print-libgcc-file-name) \
		  $(shell $(CC) -print-file-name=crtendS.o) $(MUSL)/crtn.o
else
SBX_LINK	:= $(if $(SBX_STATIC),-static-pie,-pie)
SBX_LIBS	:= $(if $(SBX_STATIC),,-ldl)
endif

# Installed paths (and the helper's link) are compiled in: a change rebuilds.
ES_PATHS	:= $(LIBDIR) $(LIBEXECDIR) $(SYSCONFDIR) $(VERSION) \
		   sbx=$(SBX_STATIC)$(if $(SBX_MUSL),musl)
$(B)/paths.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(ES_PATHS)' | cmp -s - $@ || echo '$(ES_PATHS)' > $@

$(B)/pic/%.o: shim/%.c $(B)/paths.stamp
	@mkdir -p $(@D)
	$(CC) $(ES_CFLAGS) -fPIC -fvisibility=hidden $(CFLAGS) -c -o $@ $<

$(B)/obj/%.o: shim/%.c $(B)/paths.stamp
	@mkdir -p $(@D)
	$(CC) $(ES_CFLAGS) -fPIE $(CFLAGS) -c -o $@ $<

# -Bsymbolic-functions: the hooks' calls to each other (syscall -> execve)
# and their addresses are bound at link time, not looked up in every process.
$(B)/libenvshim.so: $(LIB_OBJS) shim/preload/libenvshim.map
	$(CC) -shared -Wl,--version-script=shim/preload/libenvshim.map \
	    -Wl,--no-undefined -Wl,-Bsymbolic-functions $(ES_LDFLAGS) $(CFLAGS) \
	    $(LDFLAGS) -o $@ $(LIB_OBJS) -ldl

$(B)/envshim: $(CMD_OBJS)
	$(CC) -pie $(ES_LDFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJS)

$(B)/musl/%.o: shim/%.c $(B)/paths.stamp | $(B)/musl/kinc
	@mkdir -p $(@D)
	$(CC) $(MUSL_INC) $(ES_CFLAGS) -DES_SBX_STATIC -fPIE $(CFLAGS) -c -o $@ $<

$(B)/musl/kinc:
	@mkdir -p $@
	ln -sfn /usr/include/linux $@/linux
	ln -sfn /usr/include/asm-generic $@/asm-generic
	ln -sfn /usr/include/$(MULTIARCH)/asm $@/asm

$(B)/obj/sandbox/outer.o: ES_CFLAGS += $(if $(SBX_STATIC),-DES_SBX_STATIC)
$(B)/envshim-sandbox: $(SBX_OBJS)
	$(CC) $(SBX_LINK) $(ES_LDFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(SBX_OBJS) \
	    $(SBX_LIBS)

# ---- tests ----

$(B)/tests/%: tests/unit/%.c $(CORE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ES_CFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $< \
	    $(CORE_OBJS) -lcmocka

$(B)/asan/%: tests/unit/%.c $(ENGINE_SRCS)
	@mkdir -p $(@D)
	$(CC) $(ES_CFLAGS) -O1 -g $(ASAN_FLAGS) -Wno-missing-prototypes -o $@ \
	    $< $(ENGINE_SRCS) -lcmocka

# Small real programs the bats tests run under the shim; static_* are
# linked statically on purpose (the shim cannot enter them).
$(B)/progs/static_%: tests/progs/static_%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -static \
	    -o $@ $< -pthread
$(B)/progs/%: tests/progs/%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror \
	    -o $@ $< -pthread -ldl

# A static Go agent (os/exec, syscall.Exec: raw clone and execve) for
# contain_go.bats, built offline from the standard library alone, with
# every Go cache under $(B).  It is part of the tests: no go, no pass.
GO		?= go
GO_ENV		= CGO_ENABLED=0 GOFLAGS= GOPROXY=off GOENV=off GOTOOLCHAIN=local \
		  GOCACHE=$(abspath $(B))/go/cache GOPATH=$(abspath $(B))/go/path
$(B)/progs/go_agent: tests/progs/go_agent/main.go tests/progs/go_agent/go.mod
	@command -v $(GO) >/dev/null || { echo "$(GO) not found: the Go agent" \
	    "tests need it; tests/deps.sh installs golang-go" >&2; exit 1; }
	@mkdir -p $(@D)
	cd tests/progs/go_agent && $(GO_ENV) $(GO) build -trimpath \
	    -buildvcs=false -o $(abspath $@) .

deps:
	@tests/deps.sh

# yarn 1 (classic) for secrets.bats, which runs it with its config hidden:
# it crashes on an EACCES from a config file where npm copes.  From the
# npm registry once (one package, no dependencies), then kept in $(B).
YARN_VERSION	:= 1.22.22
YARN		:= $(B)/yarn-$(YARN_VERSION)/node_modules/yarn/bin/yarn
$(YARN):
	@command -v npm >/dev/null || { echo "npm not found: tests/deps.sh" \
	    "installs it" >&2; exit 1; }
	@mkdir -p $(B)/yarn-$(YARN_VERSION)
	npm install --prefix $(B)/yarn-$(YARN_VERSION) --no-audit --no-fund \
	    --no-save --prefer-offline --ignore-scripts --loglevel=warn \
	    yarn@$(YARN_VERSION)
	@test -x $@

unit: $(UNIT_BINS) $(B)/progs/static_hello
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

unit-asan: $(ASAN_BINS) $(B)/progs/static_hello
	@set -e; for t in $(ASAN_BINS); do echo "== $$t (ASan+UBSan)"; \
	    ASAN_OPTIONS=detect_leaks=1 $$t; done

# The same sources must build warning-free under clang too.
clang-build:
	@command -v clang >/dev/null || { echo "clang not found" >&2; exit 1; }
	$(MAKE) --no-print-directory B=$(B)/clang CC=clang $(B)/clang/libenvshim.so \
	    $(B)/clang/envshim $(B)/clang/envshim-sandbox

# Under the reaper: what a file's tests leave running is re-parented to it,
# and that file fails (tests/bats/leftovers.bash).
bats: all $(PROG_BINS) $(B)/progs/go_agent $(YARN)
	$(B)/progs/reaper bats --print-output-on-failure -r tests/bats

# The command and the helper under ASan+UBSan for sanitize.bats (never the
# preloaded shim: ASan must be the first library a process loads).
asan-bins:
	$(MAKE) --no-print-directory B=$(B)/asan-bin SBX_STATIC= \
	    CFLAGS="-O1 -g $(ASAN_FLAGS)" $(B)/asan-bin/envshim $(B)/asan-bin/envshim-sandbox

check: deps
	$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory clang-build
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory unit-asan
	$(MAKE) --no-print-directory asan-bins
	$(MAKE) --no-print-directory bats
	$(MAKE) --no-print-directory fuzz-short

# libFuzzer targets (tests/fuzz/fuzz_*.c) over the pure core.  `make fuzz`
# runs each FUZZ_SECONDS; `fuzz-short` is the bounded pass in check.  Seeds
# in tests/fuzz/corpus/T; what a run finds goes to $(B)/fuzz/T.corpus, a
# crash to $(B)/fuzz/crash-T-*, and the run's stats to $(B)/fuzz/T.log.
FUZZ_CC		?= clang
FUZZ_SECONDS	?= 300
FUZZ_LIMIT	?= -max_total_time=$(FUZZ_SECONDS)
FUZZ_SHORT_RUNS	?= 200000
FUZZ_TARGETS	:= $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BINS	:= $(addprefix $(B)/fuzz/,$(FUZZ_TARGETS))
FUZZ_SRCS	:= $(ENGINE_SRCS)

$(B)/fuzz/%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_SRCS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(filter-out -MMD -MP,$(ES_CFLAGS)) -O1 -g $(ASAN_FLAGS) \
	    -fsanitize=fuzzer -Wno-missing-prototypes -o $@ $< $(FUZZ_SRCS)

fuzz-bins: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	@set -e; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(B)/fuzz/$$t.corpus tests/fuzz/corpus/$$t; \
	    echo "== fuzz $$t: $(FUZZ_LIMIT)"; \
	    $(B)/fuzz/$$t $(FUZZ_LIMIT) -print_final_stats=1 \
	        -artifact_prefix=$(B)/fuzz/crash-$$t- -timeout=10 -rss_limit_mb=2048 \
	        $(B)/fuzz/$$t.corpus tests/fuzz/corpus/$$t >$(B)/fuzz/$$t.log 2>&1 || \
	        { tail -40 $(B)/fuzz/$$t.log; exit 1; }; \
	    grep -E '^(Done|stat::number_of_executed_units)' $(B)/fuzz/$$t.log; \
	done

# check's pass is deterministic (fixed seed and count): a red CI run is a
# regression to reproduce, never a coin toss.  `make fuzz` explores.
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZ_LIMIT="-seed=1 -runs=$(FUZZ_SHORT_RUNS)"

# docs/security.md from a real run of the hostile suites and the fuzzers
# (REPORT_FUZZ_SECONDS each); the report says what failed, then make fails.
REPORT_FUZZ_SECONDS ?= 60
security-report: all asan-bins $(PROG_BINS) $(FUZZ_BINS)
	@mkdir -p $(B)/report
	@for t in preload/bypass sandbox/escape preload/stress sanitize \
	    preload/valgrind; do echo "== bats $$t"; \
	    bats --tap tests/bats/$$t.bats >$(B)/report/$${t#*/}.tap 2>&1 || true; done
	@rm -f $(B)/fuzz/*.log
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(REPORT_FUZZ_SECONDS)
	python3 tests/security_report.py $(B) docs/security.md

# The real agent CLIs from npm, driven through a mock LLM server of our own
# on 127.0.0.1, without and with envshim (tests/e2e/README.md).  Not in
# check: it needs the npm registry and a few GB of disk.
e2e: deps
	$(MAKE) --no-print-directory all
	tests/e2e/run

# Benchmarks against the floor and peers (tests/bench/run.py); not in check.
# Builds what it can: a missing product is reported by the run, not hidden.
bench:
	-@$(MAKE) --no-print-directory -k all
	CC="$(CC)" B="$(B)" ES_WARN="$(ES_WARN)" python3 tests/bench/run.py

MAN1		:= $(wildcard docs/*.1)
MAN5		:= $(wildcard docs/*.5)
EXAMPLES	:= $(wildcard examples/*)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/envshim \
	    $(DESTDIR)$(LIBEXECDIR)/envshim
	install -m 755 $(B)/envshim $(DESTDIR)$(BINDIR)/envshim
	install -m 644 $(B)/libenvshim.so $(DESTDIR)$(LIBDIR)/envshim/libenvshim.so
	install -m 755 $(B)/envshim-sandbox \
	    $(DESTDIR)$(LIBEXECDIR)/envshim/envshim-sandbox
	$(if $(MAN1),install -d $(DESTDIR)$(MANDIR)/man1 && \
	    install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(MAN5),install -d $(DESTDIR)$(MANDIR)/man5 && \
	    install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)
	$(if $(EXAMPLES),install -d $(DESTDIR)$(DOCDIR)/examples && \
	    cp -R $(EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/envshim \
	    $(DESTDIR)$(LIBDIR)/envshim/libenvshim.so \
	    $(DESTDIR)$(LIBEXECDIR)/envshim/envshim-sandbox \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	rm -rf $(DESTDIR)$(DOCDIR)
	-rmdir $(DESTDIR)$(LIBDIR)/envshim $(DESTDIR)$(LIBEXECDIR)/envshim \
	    2>/dev/null

# A small stand-in agent run without and with envshim (examples/demo/).
$(B)/demo/agent: examples/demo/agent.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -o $@ $<

demo: all $(B)/demo/agent
	@sh examples/demo/run.sh $(B)

clean:
	rm -rf $(B)

# The builtin name index, computed once here instead of in every process.
names-ix: $(B)/obj/engine/names.o $(B)/obj/engine/names_ix.o
	$(CC) $(ES_CFLAGS) $(CFLAGS) -o $(B)/gen_names_ix shim/engine/gen_names_ix.c \
	    $(B)/obj/engine/names.o $(B)/obj/engine/names_ix.o
	$(B)/gen_names_ix >shim/engine/names_ix.c.new && \
	    mv shim/engine/names_ix.c.new shim/engine/names_ix.c

.PHONY: all deps names-ix unit unit-asan asan-bins clang-build bats check bench demo clean e2e install \
	uninstall FORCE fuzz fuzz-bins fuzz-short security-report

-include $(wildcard $(B)/obj/*/*.d $(B)/pic/*/*.d $(B)/musl/*/*.d)
