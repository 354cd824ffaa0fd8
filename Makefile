# nofd: descriptorless files for io_uring. See README.md.
#
#   make demo    boot the fast kernel: the article's greeting chain, then
#                nofd-httpd against nginx (httpd/README.md)
#   make test    boot the debug kernel and run every test
#
# Both install their own dependencies (apt-get, as root; the demo fetches
# nginx and wrk for its guest without installing them) and build what is
# missing. Kernel images are cached outside the clone (kernel/build.sh).

SHELL := /bin/bash
# a plain make builds nothing and installs nothing: it says what there is
.DEFAULT_GOAL := help
B := build
BIN := $(B)/bin

# Every program is built against 7.3's UAPI headers and the pinned
# liburing (lib/liburing-version), both unpacked from Debian's packages
# by scripts/deps.sh into the cache, never installed on the host; guest
# programs link that liburing.a statically.
NOFD_CACHE ?= /var/cache/nofd
PKG := $(NOFD_CACHE)/pkg
UAPI := $(PKG)/linux-libc-dev_$(shell cat kernel/debian-version)/usr/include
LIBURING := $(PKG)/liburing-dev_$(shell cat lib/liburing-version)/usr
LIBURING_INC ?= $(LIBURING)/include

CC := gcc
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Ilib -Itests \
	-isystem $(LIBURING_INC) -isystem $(UAPI) \
	-isystem $(UAPI)/x86_64-linux-gnu
LDFLAGS := -static
LDLIBS := $(LIBURING)/lib/x86_64-linux-gnu/liburing.a -lpthread

# The kernel each command boots (kernel/build.sh FLAVOUR writes them).
FAST := $(B)/bzImage-fast
DEBUG := $(B)/bzImage-debug

# Extra vm/run.sh options for every boot, e.g. VM_ARGS=--kvm (opt-in: KVM
# guests hang on our CI machines, TCG is the default). vm/run.sh reads them
# from the environment, whichever script boots the guest.
VM_ARGS ?=
export NOFD_VM_ARGS := $(VM_ARGS)

HDRS := $(wildcard lib/*.h tests/*.h)
TESTS := $(patsubst tests/%.c,$(BIN)/tests/%,$(wildcard tests/*.c))
GUEST := $(BIN)/init $(BIN)/ktap-run $(BIN)/greet-demo $(BIN)/find-direct \
	$(BIN)/nofd-httpd $(BIN)/versus $(BIN)/fuzz $(BIN)/stream-probe
BENCH := $(patsubst bench/%.c,$(BIN)/%,\
	$(filter-out bench/bench-report.c,$(wildcard bench/*.c)))
HOST := $(B)/host/logscan $(B)/host/unframe $(B)/host/bench-report \
	$(B)/host/profile-report $(B)/host/versus-report
PLUGIN := $(B)/profile/insn-prof.so
# the stand-in test of the harness's self-test (tests/host/harness.sh)
HARNESS := $(B)/harness/fake-test
LIBURING_SERIES := $(B)/liburing/built

.PHONY: all deps httpd kernel-fast kernel-debug initramfs test demo versus-native \
	bench bench-native bench-spread fuzz profile compile-check liburing clean \
	help install uninstall

all: $(HOST) $(GUEST) $(BENCH) $(TESTS) $(HARNESS)

# make httpd asks deps.sh for what the server needs only
DEPS_ARGS ?=
deps:
	@scripts/deps.sh $(DEPS_ARGS)

# nofd-httpd alone, for a machine of one's own: gcc and Debian's liburing
# (no QEMU, no kernel source); README.md, "Try nofd-httpd"
httpd:
	@$(MAKE) --no-print-directory DEPS_ARGS=--httpd $(BIN)/nofd-httpd
	@echo "nofd-httpd: $(BIN)/nofd-httpd (--help; httpd/README.md)"

# nofd-httpd as a service, where Debian puts what the administrator
# installs (PREFIX=/usr for a package's places): the binary, its man page
# and a systemd unit, whose ExecStart= names the installed binary.
# systemd reads units from /usr/local/lib/systemd/system and
# /usr/lib/systemd/system alike; UNITDIR= puts it elsewhere. DESTDIR:
# a staging root (tests/host/install.sh installs into one).
PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
# (what make httpd needs, not the whole of make deps)
install: DEPS_ARGS = --httpd
install: $(BIN)/nofd-httpd httpd/nofd-httpd.8 httpd/nofd-httpd.service.in
	install -D -m 0755 $(BIN)/nofd-httpd $(DESTDIR)$(SBINDIR)/nofd-httpd
	install -D -m 0644 httpd/nofd-httpd.8 $(DESTDIR)$(MANDIR)/man8/nofd-httpd.8
	@mkdir -p $(DESTDIR)$(UNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' httpd/nofd-httpd.service.in \
		>$(DESTDIR)$(UNITDIR)/nofd-httpd.service
	@chmod 0644 $(DESTDIR)$(UNITDIR)/nofd-httpd.service
	@echo "nofd-httpd: installed; systemctl daemon-reload, then"
	@echo "  systemctl enable --now nofd-httpd (port 80, /var/www/html: man nofd-httpd)"

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/nofd-httpd $(DESTDIR)$(MANDIR)/man8/nofd-httpd.8 \
		$(DESTDIR)$(UNITDIR)/nofd-httpd.service

kernel-fast kernel-debug: kernel-%: | deps
	kernel/build.sh $*

initramfs: $(B)/initramfs.cpio.gz

# With build/debs: stress-ng for tests/stress-ng (nginx and wrk come
# along, unused by the tests); with the liburing series' tests beside ours.
$(B)/initramfs.cpio.gz: $(GUEST) $(BENCH) $(TESTS) vm/mkinitramfs.sh $(B)/debs \
		$(LIBURING_SERIES)
	@vm/mkinitramfs.sh --with $(B)/debs $@ $(GUEST) $(BENCH) -- $(TESTS) \
		$(B)/liburing/tests/*

# liburing with the liburing series (liburing/README.md), and the tests the
# series adds, as build/liburing/tests/liburing-NAME
$(LIBURING_SERIES): liburing/build.sh liburing/tree.sh liburing/version \
		liburing/patches/series $(wildcard liburing/patches/*.patch) | deps
	liburing/build.sh $(B)/liburing
	@touch $@

# The demo's guest root adds Debian's nginx and wrk with their libraries.
$(B)/debs: vm/guest-debs.sh | deps
	vm/guest-debs.sh $@

$(B)/initramfs-demo.cpio.gz: $(GUEST) vm/mkinitramfs.sh $(B)/debs
	@vm/mkinitramfs.sh --with $(B)/debs $@ $(GUEST) --

$(BIN)/%: vm/%.c $(HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

$(B)/host/%: vm/%.c lib/frame.h lib/splats.h lib/usage.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(BIN)/%: bench/%.c bench/bench.h $(HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ibench $(LDFLAGS) -o $@ $< $(LDLIBS)

$(B)/host/bench-report: bench/bench-report.c lib/stats.h lib/svg.h \
		lib/usage.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -lm

$(B)/host/versus-report: bench/httpd/versus-report.c lib/stats.h lib/svg.h \
		lib/usage.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -lm

$(B)/host/profile-report: profile/profile-report.c lib/die.h lib/stats.h \
		lib/usage.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -lm

# A QEMU plugin: built against the header of the QEMU that will load it
$(PLUGIN): profile/insn-prof.c | deps
	@mkdir -p $(@D)
	inc=$$(scripts/deps.sh --qemu-plugin) && \
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC -I$$inc -o $@ $<

$(BIN)/%: demo/%.c $(HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

# --wrap: the server counts the heap allocations it makes after start-up
HTTPD_SRCS := httpd/nofd-httpd.c httpd/options.c httpd/setup.c httpd/serve.c \
	httpd/open.c httpd/respond.c httpd/log.c httpd/listing.c httpd/cache.c \
	httpd/linger.c httpd/mime.c httpd/http.c httpd/user.c httpd/signals.c \
	httpd/pool.c
$(BIN)/nofd-httpd: $(HTTPD_SRCS) httpd/server.h httpd/http.h $(HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ihttpd $(LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc \
		-o $@ $(HTTPD_SRCS) $(LDLIBS)

# the brotli encoder and zlib make the arena load's .br and .gz files
VERSUS_SRCS := bench/httpd/versus.c bench/httpd/site.c bench/httpd/arena.c
$(BIN)/versus: $(VERSUS_SRCS) bench/httpd/site.h lib/die.h lib/frame.h \
		lib/fdcount.h lib/workdir.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(VERSUS_SRCS) -lbrotlienc \
		-lbrotlicommon -lz -lm

FUZZ_SRCS := fuzz/fuzz.c fuzz/ops.c fuzz/box.c fuzz/sharer.c fuzz/stall.c
$(BIN)/fuzz: $(FUZZ_SRCS) fuzz/fuzz.h fuzz/stall.h $(HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(FUZZ_SRCS) $(LDLIBS)

$(BIN)/tests/%: tests/%.c $(HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

$(HARNESS): tests/host/harness/fake-test.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

# it includes the server's http.c, to check it against libc
$(BIN)/tests/http-format $(BIN)/tests/http-content-type \
	$(BIN)/tests/http-range $(BIN)/tests/http-accept \
	$(BIN)/tests/http-date $(BIN)/tests/http-target: httpd/http.c httpd/http.h
$(BIN)/tests/http-content-type: httpd/mime.c

test: kernel-debug initramfs $(HOST) $(PLUGIN) $(B)/debs $(HARNESS)
	tests/run.sh --kernel $(DEBUG)

# The article's greeting chain, then nofd-httpd against nginx (bench/httpd/demo.sh),
# then the same natively, on this machine's kernel (bench/httpd/native.sh)
QUICK ?=
demo: kernel-fast initramfs $(B)/initramfs-demo.cpio.gz $(HOST)
	@echo "nofd: linux-source-7.3 $$(cat kernel/debian-version), fast kernel, QEMU TCG"
	vm/run.sh --kernel $(FAST) --timeout 300 --out $(B)/demo/greet -- /bin/greet-demo
	bench/httpd/demo.sh --kernel $(FAST) $(if $(QUICK),--quick)
	bench/httpd/native.sh $(if $(QUICK),--quick)

versus-native: $(B)/debs $(BIN)/nofd-httpd $(BIN)/versus $(B)/host/unframe \
		$(B)/host/versus-report
	bench/httpd/native.sh $(if $(QUICK),--quick)

# The benchmarks (docs/benchmarks.md): every workload and mode in the fast
# guest under -icount, then natively; CSV, tables and charts in build/bench.
# QUICK=1: a fifth of the work, one round. bench-spread: the guest part three
# times, once with the host loaded, to show the figures do not move.
bench: kernel-fast initramfs $(HOST)
	bench/run.sh --kernel $(FAST) $(if $(QUICK),--quick) $(if $(ONLY),--only $(ONLY))

# The native part alone, no kernel built: what a user runs on a machine
# with many CPUs (the thread workloads double up to its CPUs), e.g.
# make bench-native ONLY=thfiles,thconn; results in build/bench-native.
ONLY ?=
bench-native: $(BENCH) $(HOST)
	bench/run.sh --native-only $(if $(QUICK),--quick) $(if $(ONLY),--only $(ONLY))

bench-spread: kernel-fast initramfs $(HOST)
	bench/spread.sh --kernel $(FAST)

# The SQE fuzzer (fuzz/fuzz.c) on the debug kernel for SECONDS of guest
# time, or for ROUNDS rounds however long they take; SEED=S replays a run
# (a failing run prints the command that replays it); STOCK=1 leaves out
# what only the series has; NODRAIN=1 leaves IOSQE_IO_DRAIN out. Each run
# works in a tmpfs of its own, made fresh and removed after. Fails on a
# fuzzer error or a splat.
SECONDS ?= 60
ROUNDS ?=
SEED ?= 0
STOCK ?=
NODRAIN ?=
fuzz: kernel-debug initramfs $(HOST)
	vm/run.sh --kernel $(DEBUG) \
		--timeout $$(( $(if $(ROUNDS),$(ROUNDS),$(SECONDS) * 4) + 300 )) \
		--out $(B)/fuzz -- /bin/fuzz \
		$(if $(ROUNDS),--rounds $(ROUNDS),--seconds $(SECONDS)) \
		$(if $(filter-out 0,$(SEED)),--seed $(SEED)) \
		$(if $(STOCK),--stock) $(if $(NODRAIN),--no-drain) | \
		vm/progress.sh fuzz; exit $${PIPESTATUS[0]}

# Where the instructions of one benchmark job go, by kernel function
# (profile/run.sh): RUNS boots of the fast guest under -icount with the
# insn-prof plugin, boot k doing k * OPS operations; the TOP costliest
# functions per operation. The jobs are bench-run's (bench/bench-run.c).
# HTTPD=SERVER,LOAD: a server of make demo's under one of its loads instead,
# by name (HTTPD=nginx-ofc,1k-close; profile/run.sh lists them), for k
# seconds of guest time in boot k (profile/run.sh says which is which).
WORKLOAD ?= files
MODE ?= direct
PARAM ?= 8
OPS ?= 2000
RUNS ?= 3
TOP ?= 25
HTTPD ?=
profile: kernel-fast initramfs $(HOST) $(PLUGIN) \
		$(if $(HTTPD),$(B)/initramfs-demo.cpio.gz)
	profile/run.sh --kernel $(FAST) $(if $(HTTPD),--httpd $(HTTPD), \
		--job $(WORKLOAD),$(MODE),$(PARAM) --ops $(OPS)) \
		--runs $(RUNS) --top $(TOP)

# Every C file compiled, not linked, against the liburing headers in
# LIBURING_INC: make test runs it against sid's newest liburing and against
# liburing with the liburing series, so that lib/nofd.h's guards are proven
# on every side.
SRCS := $(wildcard tests/*.c bench/*.c bench/httpd/*.c demo/*.c fuzz/*.c \
	httpd/*.c vm/*.c \
	profile/profile-report.c)
compile-check: | deps
	@$(foreach f,$(SRCS),$(CC) $(CFLAGS) -Ibench -Ihttpd -c -o /dev/null $(f) &&) true

help:
	@echo "usage: make TARGET [VARIABLE=VALUE]..."
	@echo "make all           every program into build/ (its make deps apt-gets,"
	@echo "                   as root, the first time)"
	@echo "make test          build and boot the debug kernel, run every test"
	@echo "make demo          the fast kernel: the greeting chain, then nofd-httpd"
	@echo "                   against nginx in the guest, then natively (QUICK=1)"
	@echo "make bench         every benchmark workload, guest then native (QUICK=1,"
	@echo "                   ONLY=WORKLOAD,...); bench-native, bench-spread"
	@echo "make versus-native nofd-httpd against nginx on this machine's kernel"
	@echo "make httpd         nofd-httpd alone, to run on this machine (no QEMU,"
	@echo "                   no kernel source; it apt-gets, as root, the first time)"
	@echo "make install       nofd-httpd, its man page and systemd unit (PREFIX="
	@echo "                   /usr/local, DESTDIR=); make uninstall"
	@echo "make fuzz          the SQE fuzzer on the debug kernel (SECONDS=, ROUNDS=,"
	@echo "                   SEED=, STOCK=1, NODRAIN=1)"
	@echo "make profile       where one job's instructions go (WORKLOAD= MODE="
	@echo "                   PARAM=, or HTTPD=SERVER,LOAD)"
	@echo "make deps          what the others fetch and install first"
	@echo "make kernel-fast, make kernel-debug, make initramfs"
	@echo "                   the pieces; make liburing (the liburing series);"
	@echo "                   make compile-check; make clean"
	@echo "README.md says how long each takes here."

liburing: $(LIBURING_SERIES)

clean:
	rm -rf $(BIN) $(B)/host $(B)/initramfs.cpio.gz $(B)/vm
