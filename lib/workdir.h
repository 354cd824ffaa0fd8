/* SPDX-License-Identifier: MIT */
/*
 * workdir.h: a program's own directory under /tmp for what it makes, in
 * place of fixed paths there: nothing of another run's (or another
 * program's) is removed, and two runs do not meet.
 */
#ifndef NOFD_WORKDIR_H
#define NOFD_WORKDIR_H

#include <ftw.h>
#include <stdio.h>

static inline int workdir_remove_one(const char *path, const struct stat *st,
				     int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

/* Remove @dir and everything below it, not following symlinks. */
static inline void workdir_remove(const char *dir)
{
	nftw(dir, workdir_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
