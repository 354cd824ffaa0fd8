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

#endif
