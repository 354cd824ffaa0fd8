// SPDX-License-Identifier: MIT
/*
 * Description: the two directories of RENAMEAT and LINKAT are fixed or not
 * each on its own: IOSQE_FIXED_FILE makes sqe->fd a slot, and
 * IORING_RENAMELINK_FIXED_NEWDIR in sqe->ioprio makes sqe->len one. All four
 * combinations, with the regular side a dirfd or AT_FDCWD, give what
 * renameat2(2) and linkat(2) give with regular dirfds, and leave the same
 * tree behind. Unknown ioprio bits fail with -EINVAL; an empty new-directory
 * slot fails a relative path with -EBADF; a regular new dirfd whose number
 * is an empty slot is taken as the fd it is.
 */
#include <sys/stat.h>

#include "test.h"

#define TOP "/tmp/fixed-dirfd-newdir"

static struct io_uring ring;

/* Name relative to the directory @dir, or to the tree root for AT_FDCWD. */
static const char *at(int cwd, const char *dir, const char *name)
{
	static char buf[4][128];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, 128, "%s%s%s", cwd ? dir : "", cwd ? "/" : "", name);
	return b;
}

static void tree(const char *root)
{
	char p[256];

	t_assert(!mkdir(root, 0755), "mkdir %s", root);
	snprintf(p, sizeof(p), "%s/A", root);
	t_assert(!mkdir(p, 0755), "mkdir %s", p);
	snprintf(p, sizeof(p), "%s/B", root);
	t_assert(!mkdir(p, 0755), "mkdir %s", p);
	snprintf(p, sizeof(p), "%s/A/f1", root);
	t_make_file(p, 1);
	snprintf(p, sizeof(p), "%s/A/f2", root);
	t_make_file(p, 2);
	snprintf(p, sizeof(p), "%s/B/g", root);
	t_make_file(p, 3);
}

/* Names in @root/A and @root/B, "A:f1 A:f2 B:g " and so on, sorted. */
static void listing(const char *root, char *out, size_t len)
{
	static const char *const dirs[] = { "A", "B" };

	out[0] = '\0';
	for (int d = 0; d < 2; d++) {
		struct dirent **names;
		char p[256];
		int n;

		snprintf(p, sizeof(p), "%s/%s", root, dirs[d]);
		n = scandir(p, &names, NULL, alphasort);
		t_assert(n >= 0, "scandir %s", p);
		for (int i = 0; i < n; i++) {
			if (names[i]->d_name[0] != '.')
				snprintf(out + strlen(out), len - strlen(out),
					 "%s:%s ", dirs[d], names[i]->d_name);
			free(names[i]);
		}
		free(names);
	}
}

enum { RENAME, LINK };
static const struct {
	int op;
	const char *old, *new;
} cases[] = {
	{ RENAME, "f1", "f1-renamed" },
	{ RENAME, "missing", "z" },
	{ RENAME, "f2", "g" },		/* replaces B/g */
	{ LINK, "f2", "f2-linked" },
	{ LINK, "f2", "f2-linked" },	/* -EEXIST */
	{ LINK, "missing", "z" },
};

/*
 * The cases on a fresh pair of trees: renameat2(2)/linkat(2) with regular
 * dirfds on one, the ring on the other with the old directory fixed if
 * @old_fixed, the new one if @new_fixed, and the regular ones a dirfd or,
 * if @cwd, AT_FDCWD.
 */
static void combination(int old_fixed, int new_fixed, int cwd, int n)
{
	char sys[128], fix[128], what[160], lsys[1024], lfix[1024], p[256];
	int sa, sb, ra, rb, mismatches = 0;

	snprintf(sys, sizeof(sys), TOP "/s%d", n);
	snprintf(fix, sizeof(fix), TOP "/r%d", n);
	tree(sys);
	tree(fix);
	snprintf(p, sizeof(p), "%s/A", sys);
	sa = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(p, sizeof(p), "%s/B", sys);
	sb = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(p, sizeof(p), "%s/A", fix);
	ra = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(p, sizeof(p), "%s/B", fix);
	rb = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(sa >= 0 && sb >= 0 && ra >= 0 && rb >= 0, "open dirs");
	t_assert(io_uring_register_files_update(&ring, 0, &ra, 1) == 1 &&
		 io_uring_register_files_update(&ring, 1, &rb, 1) == 1,
		 "slots 0 and 1");
	t_assert(!chdir(fix), "chdir");
	snprintf(what, sizeof(what), "old %s, new %s",
		 old_fixed ? "fixed" : cwd ? "AT_FDCWD" : "regular fd",
		 new_fixed ? "fixed" : cwd ? "AT_FDCWD" : "regular fd");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int odir = old_fixed ? 0 : cwd ? AT_FDCWD : ra;
		int ndir = new_fixed ? 1 : cwd ? AT_FDCWD : rb;
		const char *o = at(!old_fixed && cwd, "A", cases[i].old);
		const char *nn = at(!new_fixed && cwd, "B", cases[i].new);
		int want, got;

		if (cases[i].op == RENAME)
			want = renameat2(sa, cases[i].old, sb, cases[i].new, 0);
		else
			want = linkat(sa, cases[i].old, sb, cases[i].new, 0);
		want = want < 0 ? -errno : 0;
		got = t_run(&ring, ({
			if (cases[i].op == RENAME)
				io_uring_prep_renameat(t_sqe, odir, o, ndir, nn, 0);
			else
				io_uring_prep_linkat(t_sqe, odir, o, ndir, nn, 0);
			if (old_fixed)
				t_sqe->flags |= IOSQE_FIXED_FILE;
			if (new_fixed)
				t_sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
		}));
		if (got != want)
			printf("    %s %s -> %s: syscall %d, ring %d\n",
			       cases[i].op == RENAME ? "RENAMEAT" : "LINKAT",
			       o, nn, want, got);
		mismatches += got != want;
	}
	listing(sys, lsys, sizeof(lsys));
	listing(fix, lfix, sizeof(lfix));
	t_check(!mismatches && !strcmp(lsys, lfix), "%s: RENAMEAT and LINKAT "
		"give what the syscalls give (%d differ) and the trees agree "
		"(%s)", what, mismatches, lfix);
	t_assert(!chdir("/"), "chdir /");
	close(sa);
	close(sb);
	close(ra);
	close(rb);
}

static void errors(void)
{
	char p[256];
	int ra, fd, ret;

	tree(TOP "/e");
	ra = open(TOP "/e/A", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(ra >= 0 && io_uring_register_files_update(&ring, 0, &ra, 1)
		 == 1, "slot 0");
	for (unsigned int bit = 1; bit < 16; bit++) {
		ret = t_run(&ring, ({
			io_uring_prep_renameat(t_sqe, 0, "f1", 0, "x", 0);
			t_sqe->flags |= IOSQE_FIXED_FILE;
			t_sqe->ioprio = 1U << bit;
		}));
		if (ret != -EINVAL)
			break;
		ret = t_run(&ring, ({
			io_uring_prep_linkat(t_sqe, 0, "f1", 0, "x", 0);
			t_sqe->flags |= IOSQE_FIXED_FILE;
			t_sqe->ioprio = 1U << bit;
		}));
		if (ret != -EINVAL)
			break;
	}
	t_check_res(ret, -EINVAL, "RENAMEAT and LINKAT with any unknown ioprio "
		    "bit (1 to 15) fail with -EINVAL");

	ret = renameat2(ra, "f1", 1000, "x", 0) < 0 ? -errno : 0;
	t_check_res(t_run(&ring, ({
		io_uring_prep_renameat(t_sqe, 0, "f1", 5, "x", 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
		t_sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
	})), ret, "RENAMEAT to an empty new-directory slot: what renameat2(2) "
		    "gives a new dirfd that refers to no file");

	/* a regular fd whose number is an empty slot is the fd */
	snprintf(p, sizeof(p), TOP "/e/B");
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 2 && fd < 16, "an fd below the table size: %d", fd);
	t_assert(io_uring_register_files_update(&ring, fd, (int[]){ -1 }, 1)
		 == 1, "slot %d empty", fd);
	ret = t_run(&ring, ({
		io_uring_prep_linkat(t_sqe, 0, "f1", fd, "f1-in-B", 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	}));
	t_check(ret == 0 && !access(TOP "/e/B/f1-in-B", F_OK),
		"LINKAT from a fixed old directory to the regular fd %d (slot "
		"%d is empty) links into that directory (%d)", fd, fd, ret);
	close(fd);
	close(ra);
}

int main(void)
{
	int n = 0, ret;

	t_assert(!mkdir(TOP, 0755) || errno == EEXIST, "mkdir");
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 16), "register");
	tree(TOP "/probe");
	ret = open(TOP "/probe/A", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(io_uring_register_files_update(&ring, 0, &ret, 1) == 1, "slot");
	close(ret);
	ret = t_run(&ring, ({
		io_uring_prep_renameat(t_sqe, 0, "f1", 0, "f3", 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
		t_sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
	}));
	if (ret == -EBADF)
		return t_no_feature("fixed directories of RENAMEAT");
	t_check_res(ret, 0, "RENAMEAT with both directories fixed works");

	for (int cwd = 0; cwd < 2; cwd++)
		for (int c = 0; c < 4; c++)
			combination(c & 1, c & 2, cwd, n++);
	errors();

	io_uring_queue_exit(&ring);
	return t_exit();
}
