/* SPDX-License-Identifier: MIT */
/*
 * fdcount.h: how many regular descriptors a process holds, from
 * /proc/PID/fd: what the tests and the fuzzer check nothing leaked into.
 */
#ifndef NOFD_FDCOUNT_H
#define NOFD_FDCOUNT_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

/* Entries in /proc/@pid/fd: its regular descriptors; -errno on failure. */
static inline int count_fds_of(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

/* This process's regular descriptors, not counting the one it reads with. */
static inline int count_fds(void)
{
	int n = count_fds_of(getpid());

	return n < 0 ? n : n - 1;
}

#endif
