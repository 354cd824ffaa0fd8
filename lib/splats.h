/* SPDX-License-Identifier: MIT */
/*
 * splats.h: the kernel-log lines that fail a run even when every test
 * passed. vm/logscan.c looks for them in the whole console log on the
 * host; vm/ktap-run.c in /dev/kmsg after each test, to fail the test that
 * was running.
 */
#ifndef NOFD_SPLATS_H
#define NOFD_SPLATS_H

#include <stddef.h>
#include <string.h>

static const char *const nofd_splats[] = {
	"BUG:",			/* BUG(), KASAN, KFENCE, sleep in atomic, soft lockup */
	"kernel BUG at",
	"WARNING:",		/* WARN*(), lockdep, suspicious RCU usage */
	"KASAN:",
	"KFENCE:",
	"UBSAN:",
	"possible recursive locking detected",
	"possible circular locking dependency",
	"inconsistent lock state",
	"INFO: task",		/* hung task detector */
	"INFO: rcu",		/* RCU stall detector */
	"unreferenced object 0x",	/* kmemleak */
	"Oops:",
	"general protection fault",
	"Kernel panic",
	"Call Trace:",		/* any other stack dump */
	/* a filesystem that found itself inconsistent, or I/O that failed */
	"-fs error",		/* EXT4-fs error (device vda): ..., EXT2-fs */
	"-fs warning",
	"Remounting filesystem read-only",
	"Aborting journal",
	"Buffer I/O error",
	"I/O error, dev",	/* the block layer's failed request */
	/* a checker that turned itself off: what follows goes unchecked */
	"turning off the locking correctness validator",	/* lockdep */
	"lockdep is turned off",
	"Disabling lock debugging due to kernel taint",	/* after KASAN's report, an oops */
	"Kernel memory leak detector disabled",		/* kmemleak */
	"Kmemleak disabled",
	"kmemleak: Cannot allocate",
	"kmemleak: Memory pool empty",
	"kmemleak: Failed to create the scan thread",
	"kfence: disabled",
};

/* The pattern of nofd_splats[] that @line matches, or NULL. */
static inline const char *nofd_splat(const char *line)
{
	for (size_t i = 0; i < sizeof(nofd_splats) / sizeof(nofd_splats[0]); i++)
		if (strstr(line, nofd_splats[i]))
			return nofd_splats[i];
	return NULL;
}

/*
 * A test that makes the kernel report something on purpose (a directory
 * block it corrupted fails its checksum) says so in the kernel log first,
 * through /dev/kmsg: a line with NOFD_EXPECT and a text makes the lines
 * that contain that text expected, until a line with NOFD_EXPECT_END.
 * The text names the very object (the inode and block it corrupted), so
 * that any other report still fails the run. A scanner reads the log in
 * order with a struct nofd_scan of its own, zeroed at the start.
 */
#define NOFD_EXPECT "nofd: expected in the kernel log: "
#define NOFD_EXPECT_END "nofd: expected no more"

struct nofd_scan {
	char expect[256];
};

/* nofd_splat() of @line, unless an earlier line said to expect it. */
static inline const char *nofd_scan_line(struct nofd_scan *sc,
					 const char *line)
{
	const char *mark = strstr(line, NOFD_EXPECT);

	if (mark) {
		size_t n;

		mark += strlen(NOFD_EXPECT);
		n = strcspn(mark, "\r\n");
		if (n >= sizeof(sc->expect))
			n = sizeof(sc->expect) - 1;
		memcpy(sc->expect, mark, n);
		sc->expect[n] = '\0';
		return NULL;
	}
	if (strstr(line, NOFD_EXPECT_END)) {
		sc->expect[0] = '\0';
		return NULL;
	}
	if (sc->expect[0] && strstr(line, sc->expect))
		return NULL;
	return nofd_splat(line);
}

#endif
