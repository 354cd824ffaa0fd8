// SPDX-License-Identifier: MIT
/*
 * Description: escape attempts from a directory held as a direct
 * descriptor are refused exactly as from a regular dirfd. OPENAT2 with
 * RESOLVE_BENEATH, RESOLVE_IN_ROOT, RESOLVE_NO_SYMLINKS,
 * RESOLVE_NO_MAGICLINKS and RESOLVE_NO_XDEV tries "..", absolute paths,
 * absolute symlinks, relative symlinks leaving the root and /proc/self/fd
 * magic links, relative to a regular dirfd and to the same directory as a
 * fixed file; both must give what openat2(2) gives relative to the regular
 * dirfd, which must be the result openat2(2) documents.
 */
#include "dirfd-fixture.h"

#define ROOT "/tmp/fxe-root"

static const struct fx_case cases[] = {
	/* RESOLVE_BENEATH: nothing may leave the directory */
	{ FX_OPEN2, "a", NULL, O_RDONLY, RESOLVE_BENEATH, 0, 0 },
	{ FX_OPEN2, "sub/../a", NULL, O_RDONLY, RESOLVE_BENEATH, 0, 0 },
	{ FX_OPEN2, "../fx-outside", NULL, O_RDONLY, RESOLVE_BENEATH, 0, -EXDEV },
	{ FX_OPEN2, "sub/../../fx-outside", NULL, O_RDONLY, RESOLVE_BENEATH, 0, -EXDEV },
	{ FX_OPEN2, FX_OUTSIDE, NULL, O_RDONLY, RESOLVE_BENEATH, 0, -EXDEV },
	{ FX_OPEN2, "link-abs", NULL, O_RDONLY, RESOLVE_BENEATH, 0, -EXDEV },
	{ FX_OPEN2, "link-up/fx-outside", NULL, O_RDONLY, RESOLVE_BENEATH, 0, -EXDEV },
	{ FX_OPEN2, "link-in", NULL, O_RDONLY, RESOLVE_BENEATH, 0, 0 },
	{ FX_OPEN2, "link-magic", NULL, O_RDONLY, RESOLVE_BENEATH, 0, -EXDEV },
	{ FX_OPEN2, "/proc/self/fd/0", NULL, O_RDONLY, RESOLVE_BENEATH, 0, -EXDEV },
	/* RESOLVE_IN_ROOT: "/" and ".." stop at the directory */
	{ FX_OPEN2, "/a", NULL, O_RDONLY, RESOLVE_IN_ROOT, 0, 0 },
	{ FX_OPEN2, "../a", NULL, O_RDONLY, RESOLVE_IN_ROOT, 0, 0 },
	{ FX_OPEN2, "../../../sub/b", NULL, O_RDONLY, RESOLVE_IN_ROOT, 0, 0 },
	{ FX_OPEN2, "link-up/a", NULL, O_RDONLY, RESOLVE_IN_ROOT, 0, 0 },
	{ FX_OPEN2, "link-up/fx-outside", NULL, O_RDONLY, RESOLVE_IN_ROOT, 0, -ENOENT },
	{ FX_OPEN2, FX_OUTSIDE, NULL, O_RDONLY, RESOLVE_IN_ROOT, 0, -ENOENT },
	{ FX_OPEN2, "link-abs", NULL, O_RDONLY, RESOLVE_IN_ROOT, 0, -ENOENT },
	{ FX_OPEN2, "link-magic", NULL, O_RDONLY, RESOLVE_IN_ROOT, 0, -ENOENT },
	{ FX_OPEN2, "/proc/self/fd/0", NULL, O_RDONLY, RESOLVE_IN_ROOT, 0, -ENOENT },
	/* RESOLVE_NO_SYMLINKS: no symlink at all, even one inside */
	{ FX_OPEN2, "link-in", NULL, O_RDONLY, RESOLVE_NO_SYMLINKS, 0, -ELOOP },
	{ FX_OPEN2, "link-up/fx-outside", NULL, O_RDONLY, RESOLVE_NO_SYMLINKS, 0, -ELOOP },
	{ FX_OPEN2, "../fx-outside", NULL, O_RDONLY, RESOLVE_NO_SYMLINKS, 0, 0 },
	/* RESOLVE_NO_MAGICLINKS: ordinary symlinks still resolve */
	{ FX_OPEN2, "link-magic", NULL, O_RDONLY, RESOLVE_NO_MAGICLINKS, 0, -ELOOP },
	{ FX_OPEN2, "/proc/self/fd/0", NULL, O_RDONLY, RESOLVE_NO_MAGICLINKS, 0, -ELOOP },
	{ FX_OPEN2, "link-in", NULL, O_RDONLY, RESOLVE_NO_MAGICLINKS, 0, 0 },
	/* RESOLVE_NO_XDEV: /tmp is a tmpfs mount on the initramfs root */
	{ FX_OPEN2, "../fx-outside", NULL, O_RDONLY, RESOLVE_NO_XDEV, 0, 0 },
	{ FX_OPEN2, "../../proc", NULL, O_RDONLY, RESOLVE_NO_XDEV, 0, -EXDEV },
	{ FX_OPEN2, "/proc/self", NULL, O_RDONLY, RESOLVE_NO_XDEV, 0, -EXDEV },
	{ FX_OPEN2, "sub/b", NULL, O_RDONLY, RESOLVE_NO_XDEV, 0, 0 },
	/* combinations */
	{ FX_OPEN2, "link-in", NULL, O_RDONLY, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, 0, -ELOOP },
	{ FX_OPEN2, "/a", NULL, O_RDONLY, RESOLVE_IN_ROOT | RESOLVE_NO_XDEV, 0, 0 },
};

int main(void)
{
	struct io_uring ring;
	int reg, fds, ret;
	char b0[32], b1[32], b2[32], b3[32];

	fx_make(ROOT);
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 8), "register");
	reg = open(ROOT, O_RDONLY | O_DIRECTORY);
	t_assert(reg >= 0, "open " ROOT);
	fds = t_count_fds();
	fx_open_direct(&ring, ROOT, 0);

	ret = fx_run(&ring, &cases[0], 0, 0, 1, NULL);
	if (ret == -EBADF)
		return t_no_feature("a fixed file as the dirfd of OPENAT2");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct fx_case *c = &cases[i];
		struct statx stx;	/* fx_sys() wants one; OPENAT2 leaves it */
		int s = fx_sys(c, reg, reg, &stx);
		int r = fx_run(&ring, c, reg, reg, 0, NULL);
		int f = fx_run(&ring, c, 0, 0, 1, NULL);

		t_check(s == c->want && r == s && f == s,
			"OPENAT2 \"%s\" resolve %#llx: openat2(2) %s, regular %s, direct %s, want %s",
			c->path, c->resolve, fx_res(s, b0, sizeof(b0)),
			fx_res(r, b1, sizeof(b1)), fx_res(f, b2, sizeof(b2)),
			fx_res(c->want, b3, sizeof(b3)));
	}
	t_check(t_count_fds() == fds, "/proc/self/fd never changed in the direct runs");

	io_uring_queue_exit(&ring);
	return t_exit();
}
