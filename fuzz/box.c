// SPDX-License-Identifier: MIT
/*
 * box.c: where a run of the fuzzer works (struct box_state in fuzz.h).
 */
#include "fuzz.h"

struct box_state box;

/* @dir with a file "a" (4 bytes and an xattr for FGETXATTR) and a "d/" */
static int make_tree(const char *dir)
{
	int dfd, fd;

	if (mkdir(dir, 0755))
		return -1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || mkdirat(dfd, "d", 0755))
		return -1;
	fd = openat(dfd, "a", O_RDWR | O_CREAT | O_EXCL, 0644);
	close(dfd);
	if (fd < 0 || write(fd, "fuzz", 4) != 4 ||
	    fsetxattr(fd, "user.fuzz", "v", 1, 0)) {
		perror("fuzz: make_tree");
		return -1;
	}
	close(fd);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT)
		printf("fuzz: cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

/* Everything in the sandbox but shared/ (@all: that too) removed. */
static void box_wipe(bool all)
{
	struct dirent *de;
	char path[320];
	DIR *d = opendir(box.root);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (!all && !strcmp(de->d_name, "shared")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", box.root, de->d_name);
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
	closedir(d);
}

/*
 * A fresh tree for the next round (or the good-input pass), whatever the
 * last one did to it; rounds can reach the sandbox's top through "..", so
 * all of it but shared/ goes.
 */
int tree_reset(void)
{
	if (chdir(box.root))
		return -1;
	box_wipe(false);
	if (make_tree(box.tree) || chdir(box.tree)) {
		printf("fuzz: cannot make the tree %s\n", box.tree);
		return -1;
	}
	return 0;
}

int box_make(void)
{
	strcpy(box.root, "/tmp/fuzz.XXXXXX");
	if (!mkdtemp(box.root)) {
		perror("fuzz: mkdtemp");
		return -1;
	}
	box.mounted = !mount("fuzz", box.root, "tmpfs", 0, "mode=0755");
	if (!box.mounted)
		printf("fuzz: sandbox %s is a plain directory (tmpfs: %s): "
		       "a leaked reference will not show\n", box.root,
		       strerror(errno));
	snprintf(box.tree, sizeof(box.tree), "%s/tree", box.root);
	snprintf(box.tree_a, sizeof(box.tree_a), "%s/a", box.tree);
	snprintf(box.shared, sizeof(box.shared), "%s/shared", box.root);
	return make_tree(box.shared) || tree_reset() ? -1 : 0;
}

/*
 * The end of the run: the sandbox goes. The rings' exit work runs after
 * io_uring_queue_exit() returns, so the unmount is retried for a while
 * before a busy tmpfs counts as a leaked reference.
 */
int box_remove(void)
{
	int errors = 0;

	if (chdir("/"))
		errors++;
	box_wipe(true);
	if (box.mounted) {
		int tries = 0;

		while (umount(box.root) && errno == EBUSY && ++tries < 100)
			usleep(100000);
		if (tries == 100) {
			printf("fuzz: the sandbox's tmpfs is still busy after "
			       "10 s: a file reference outlived the rings\n");
			umount2(box.root, MNT_DETACH);
			errors++;
		}
	}
	if (rmdir(box.root)) {
		printf("fuzz: cannot remove %s: %s\n", box.root,
		       strerror(errno));
		errors++;
	}
	return errors;
}
