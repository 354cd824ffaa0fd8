// SPDX-License-Identifier: MIT
/*
 * Description: nofd's fixed dirfds behave exactly like regular dirfds.
 * Every path op that takes a directory fd (OPENAT, OPENAT2, STATX, MKDIRAT,
 * UNLINKAT, SYMLINKAT, RENAMEAT, LINKAT) runs each case of a table three
 * times, on three identical fixture trees: the syscall (openat(2),
 * openat2(2), statx(2), ...) relative to a regular dirfd of the first, the
 * op relative to a regular dirfd of the second, and, with
 * IOSQE_FIXED_FILE, the op relative to the third held only as a direct
 * descriptor. Both runs of the op must give what the syscall gave, and the
 * syscall the table's result; STATX through the second tree's directory
 * as a direct descriptor gives the very fields it gives through its
 * regular dirfd; the three trees end up identical; and /proc/self/fd
 * never changes in the direct runs.
 */
#include "dirfd-fixture.h"

#define SYS "/tmp/fxd-syscall"
#define REG "/tmp/fxd-regular"
#define FIX "/tmp/fxd-direct"

static const struct fx_case cases[] = {
	/* opens: relative, nested, through symlinks, special files */
	{ FX_OPEN, "a", NULL, O_RDONLY, 0, 0, 0 },
	{ FX_OPEN, "sub/b", NULL, O_RDONLY, 0, 0, 0 },
	{ FX_OPEN, "sub", NULL, O_RDONLY | O_DIRECTORY, 0, 0, 0 },
	{ FX_OPEN, ".", NULL, O_RDONLY | O_DIRECTORY, 0, 0, 0 },
	{ FX_OPEN, "missing", NULL, O_RDONLY, 0, 0, -ENOENT },
	{ FX_OPEN, "a/x", NULL, O_RDONLY, 0, 0, -ENOTDIR },
	{ FX_OPEN, "a", NULL, O_RDONLY | O_DIRECTORY, 0, 0, -ENOTDIR },
	{ FX_OPEN, "sub", NULL, O_WRONLY, 0, 0, -EISDIR },
	{ FX_OPEN, "", NULL, O_RDONLY, 0, 0, -ENOENT },
	{ FX_OPEN, "link-in", NULL, O_RDONLY, 0, 0, 0 },
	{ FX_OPEN, "link-in", NULL, O_RDONLY | O_NOFOLLOW, 0, 0, -ELOOP },
	{ FX_OPEN, "link-in", NULL, O_PATH | O_NOFOLLOW, 0, 0, 0 },
	{ FX_OPEN, "dangling", NULL, O_RDONLY, 0, 0, -ENOENT },
	{ FX_OPEN, "link-abs", NULL, O_RDONLY | O_DIRECTORY, 0, 0, 0 },
	/* ".." and relative symlinks may leave the directory */
	{ FX_OPEN, "link-up/fx-outside", NULL, O_RDONLY, 0, 0, 0 },
	{ FX_OPEN, "../fx-outside", NULL, O_RDONLY, 0, 0, 0 },
	/* an absolute path ignores the directory */
	{ FX_OPEN, FX_OUTSIDE, NULL, O_RDONLY, 0, 0, 0 },
	{ FX_OPEN, "fifo", NULL, O_RDONLY | O_NONBLOCK, 0, 0, 0 },
	{ FX_OPEN, "fifo", NULL, O_WRONLY | O_NONBLOCK, 0, 0, -ENXIO },
	{ FX_OPEN, "sock", NULL, O_RDONLY, 0, 0, -ENXIO },
	{ FX_OPEN, "new", NULL, O_CREAT | O_WRONLY, 0, 0, 0 },
	{ FX_OPEN, "a", NULL, O_CREAT | O_EXCL | O_WRONLY, 0, 0, -EEXIST },
	{ FX_OPEN, "sub/new2", NULL, O_CREAT | O_WRONLY | O_TRUNC, 0, 0, 0 },
	{ FX_OPEN2, "sub/../a", NULL, O_RDONLY, RESOLVE_BENEATH, 0, 0 },
	{ FX_OPEN2, "link-in", NULL, O_RDONLY, RESOLVE_NO_SYMLINKS, 0, -ELOOP },
	/* stat: files of every kind, symlinks followed or not, fstat */
	{ FX_STATX, "a", NULL, 0, 0, 0, 0 },
	{ FX_STATX, "sub", NULL, 0, 0, 0, 0 },
	{ FX_STATX, "link-in", NULL, 0, 0, 0, 0 },
	{ FX_STATX, "link-in", NULL, AT_SYMLINK_NOFOLLOW, 0, 0, 0 },
	{ FX_STATX, "dangling", NULL, AT_SYMLINK_NOFOLLOW, 0, 0, 0 },
	{ FX_STATX, "dangling", NULL, 0, 0, 0, -ENOENT },
	{ FX_STATX, "fifo", NULL, 0, 0, 0, 0 },
	{ FX_STATX, "sock", NULL, 0, 0, 0, 0 },
	{ FX_STATX, "", NULL, AT_EMPTY_PATH, 0, 0, 0 },
	{ FX_STATX, "", NULL, 0, 0, 0, -ENOENT },
	{ FX_STATX, "a/", NULL, 0, 0, 0, -ENOTDIR },
	{ FX_STATX, "missing", NULL, 0, 0, 0, -ENOENT },
	{ FX_STATX, "..", NULL, 0, 0, 0, 0 },
	{ FX_STATX, FX_OUTSIDE, NULL, 0, 0, 0, 0 },
	/* creating directories */
	{ FX_MKDIR, "d1", NULL, 0, 0, 0, 0 },
	{ FX_MKDIR, "sub/d2", NULL, 0, 0, 0, 0 },
	{ FX_MKDIR, "a", NULL, 0, 0, 0, -EEXIST },
	{ FX_MKDIR, "missing/x", NULL, 0, 0, 0, -ENOENT },
	{ FX_MKDIR, "a/x", NULL, 0, 0, 0, -ENOTDIR },
	/* symlinks: path is the new link, path2 its target */
	{ FX_SYMLINK, "sl", "a", 0, 0, 0, 0 },
	{ FX_SYMLINK, "a", "x", 0, 0, 0, -EEXIST },
	{ FX_SYMLINK, "missing/sl", "a", 0, 0, 0, -ENOENT },
	/* hard links, in the same directory and into sub/ */
	{ FX_LINK, "a", "hard", 0, 0, 0, 0 },
	{ FX_LINK, "a", "hard-in-sub", 0, 0, 1, 0 },
	{ FX_LINK, "link-in", "hard-sl", 0, 0, 0, 0 },
	{ FX_LINK, "link-in", "hard-tgt", AT_SYMLINK_FOLLOW, 0, 0, 0 },
	{ FX_LINK, "sub", "hard2", 0, 0, 0, -EPERM },
	{ FX_LINK, "missing", "h3", 0, 0, 0, -ENOENT },
	{ FX_LINK, "a", "b", 0, 0, 1, -EEXIST },
	/* renames, in the same directory and into sub/ */
	{ FX_RENAME, "new", "new-renamed", 0, 0, 0, 0 },
	{ FX_RENAME, "hard", "hard-moved", 0, 0, 1, 0 },
	{ FX_RENAME, "missing", "x", 0, 0, 0, -ENOENT },
	{ FX_RENAME, "sub/b", "a", RENAME_NOREPLACE, 0, 0, -EEXIST },
	{ FX_RENAME, "sub", "sub/deeper/x", 0, 0, 0, -EINVAL },
	{ FX_RENAME, "a", "new2", RENAME_EXCHANGE, 0, 1, 0 },
	/* removal */
	{ FX_UNLINK, "sl", NULL, 0, 0, 0, 0 },
	{ FX_UNLINK, "sub", NULL, 0, 0, 0, -EISDIR },
	{ FX_UNLINK, "sub", NULL, AT_REMOVEDIR, 0, 0, -ENOTEMPTY },
	{ FX_UNLINK, "empty", NULL, AT_REMOVEDIR, 0, 0, 0 },
	{ FX_UNLINK, "d1", NULL, AT_REMOVEDIR, 0, 0, 0 },
	{ FX_UNLINK, "a", NULL, AT_REMOVEDIR, 0, 0, -ENOTDIR },
	{ FX_UNLINK, "missing", NULL, 0, 0, 0, -ENOENT },
};

/* Append "name type size [-> target]" lines for the tree at @dir to @out. */
static void listing(const char *root, const char *rel, char *out, size_t len)
{
	char path[512], target[256];
	struct dirent **names;
	struct stat st;
	int n;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	n = scandir(path, &names, NULL, alphasort);
	t_assert(n >= 0, "scandir %s", path);
	for (int i = 0; i < n; i++) {
		char sub[256];
		ssize_t tl;

		if (names[i]->d_name[0] == '.' && (!names[i]->d_name[1] ||
		    !strcmp(names[i]->d_name, ".."))) {
			free(names[i]);
			continue;
		}
		snprintf(sub, sizeof(sub), "%s%s", rel, names[i]->d_name);
		snprintf(path, sizeof(path), "%s/%s", root, sub);
		t_assert(!lstat(path, &st), "lstat %s", path);
		tl = readlink(path, target, sizeof(target) - 1);
		target[tl > 0 ? tl : 0] = '\0';
		snprintf(out + strlen(out), len - strlen(out), "%s %o %lld %lu %s\n",
			 sub, st.st_mode, (long long)st.st_size,
			 (unsigned long)st.st_nlink, target);
		if (S_ISDIR(st.st_mode)) {
			strcat(sub, "/");
			listing(root, sub, out, len);
		}
		free(names[i]);
	}
	free(names);
}

int main(void)
{
	static char list_sys[16384], list_reg[16384], list_fix[16384];
	struct io_uring ring;
	int sys, sys_sub, reg, reg_sub, fds, ret;
	char b0[32], b1[32], b2[32], b3[32];

	fx_make(SYS);
	fx_make(REG);
	fx_make(FIX);
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 16), "register");
	sys = open(SYS, O_RDONLY | O_DIRECTORY);
	sys_sub = open(SYS "/sub", O_RDONLY | O_DIRECTORY);
	reg = open(REG, O_RDONLY | O_DIRECTORY);
	reg_sub = open(REG "/sub", O_RDONLY | O_DIRECTORY);
	t_assert(sys >= 0 && sys_sub >= 0 && reg >= 0 && reg_sub >= 0,
		 "open fixture");
	fds = t_count_fds();
	fx_open_direct(&ring, FIX, 0);
	fx_open_direct(&ring, FIX "/sub", 1);
	fx_open_direct(&ring, REG, 2);
	fx_open_direct(&ring, REG "/sub", 3);

	ret = t_run(&ring, {
		io_uring_prep_openat(t_sqe, 0, "a", O_RDONLY, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
		t_sqe->file_index = IORING_FILE_INDEX_ALLOC;
	});
	if (ret == -EBADF)
		return t_no_feature("a fixed file as the dirfd of OPENAT");
	t_check(ret >= 4, "OPENAT relative to slot 0 installs into slot %d", ret);
	t_run(&ring, io_uring_prep_close_direct(t_sqe, ret));

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct fx_case *c = &cases[i];
		struct statx ss, sr, sf, same;
		int s, r, f;

		memset(&ss, 0, sizeof(ss));
		memset(&sr, 0, sizeof(sr));
		memset(&sf, 0, sizeof(sf));
		s = fx_sys(c, sys, sys_sub, &ss);
		r = fx_run(&ring, c, reg, reg_sub, 0, &sr);
		f = fx_run(&ring, c, 0, 1, 1, &sf);
		t_check(s == c->want && r == s && f == s,
			"%s \"%s\"%s%s flags %#llx resolve %#llx: syscall %s, regular %s, direct %s, want %s",
			fx_op_names[c->op], c->path, c->path2 ? " \"" : "",
			c->path2 ? c->path2 : "", c->flags, c->resolve,
			fx_res(s, b0, sizeof(b0)), fx_res(r, b1, sizeof(b1)),
			fx_res(f, b2, sizeof(b2)), fx_res(c->want, b3, sizeof(b3)));
		if (t_count_fds() != fds)
			t_check(0, "/proc/self/fd is unchanged after %s \"%s\"",
				fx_op_names[c->op], c->path);
		if (c->op != FX_STATX || s)
			continue;
		/* The second tree as a direct descriptor: every field agrees. */
		memset(&same, 0, sizeof(same));
		f = fx_run(&ring, c, 2, 3, 1, &same);
		t_check(f == 0 && fx_same_statx(&sr, &same),
			"STATX \"%s\" of one tree, via a regular and a direct dirfd: same fields (mode %o, ino %llu)",
			c->path, same.stx_mode, (unsigned long long)same.stx_ino);
	}

	listing(SYS, "", list_sys, sizeof(list_sys));
	listing(REG, "", list_reg, sizeof(list_reg));
	listing(FIX, "", list_fix, sizeof(list_fix));
	t_check(!strcmp(list_sys, list_reg) && !strcmp(list_reg, list_fix),
		"the three trees end up identical (%zu bytes of listing)",
		strlen(list_reg));
	if (strcmp(list_sys, list_reg) || strcmp(list_reg, list_fix))
		printf("syscall:\n%sregular:\n%sdirect:\n%s", list_sys,
		       list_reg, list_fix);
	t_check(t_count_fds() == fds, "/proc/self/fd is as before the direct runs");

	io_uring_queue_exit(&ring);
	return t_exit();
}
