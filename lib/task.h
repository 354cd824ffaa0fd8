/* SPDX-License-Identifier: MIT */
/*
 * task.h: what /proc says of a thread of this process, for the tests and
 * the fuzzer that wait until another thread sleeps where they want it.
 */
#ifndef NOFD_TASK_H
#define NOFD_TASK_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* Whether thread @tid sleeps uninterruptibly (state D), as on a lock */
static inline bool task_in_d_state(pid_t tid)
{
	char path[64], line[512], *p;
	bool d = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (f && fgets(line, sizeof(line), f) && (p = strrchr(line, ')')))
		d = p[2] == 'D';
	if (f)
		fclose(f);
	return d;
}

#endif
