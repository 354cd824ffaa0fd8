/* SPDX-License-Identifier: MIT */
/*
 * workdir.h: a program's own directory under /tmp for what it makes, in
 * place of fixed paths there: nothing of another run's (or another
 * program's) is removed, and two runs do not meet.
 */
#ifndef NOFD_WORKDIR_H
#define NOFD_WORKDIR_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>

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

/*
 * Unmount @dir, a disk a program mounted in its work directory, before it
 * exits, not lazily. A lazy unmount leaves the filesystem's last put
 * (ext4's journal and superblock writes) to whoever lets go of the mount
 * last: at the end of a make profile boot that was a kworker, after the
 * program had exited, racing the guest's reboot, which shut the disk down
 * under it (I/O errors). Waits up to 10 s for other holders (a job's
 * rings are torn down after the job exits), then detaches.
 */
static inline void workdir_unmount(const char *dir)
{
	for (int i = 0; i < 1000; i++) {
		if (!umount2(dir, 0) || errno != EBUSY)
			return;
		usleep(10000);
	}
	fprintf(stderr, "%s still busy after 10 s: detached\n", dir);
	umount2(dir, MNT_DETACH);
}

#endif
