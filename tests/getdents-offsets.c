// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_GETDENTS positions. sqe->off 0 restarts the
 * directory; any d_off cookie resumes right after the record it came with;
 * the last cookie reads end of directory; a positioned read leaves the file
 * position after what it returned; and GETDENTS at the file position
 * (off -1) interleaved with getdents64(2) on the same open directory
 * continues one stream, with no record twice or missing. On tmpfs and
 * ramfs, through a direct descriptor that shares the struct file with a
 * regular fd.
 */
#include "getdents-fixture.h"

#define NR 100

static struct io_uring ring;

/* Whether @l holds exactly the records @ref[@from..] in order. */
static int is_tail(const struct gd_list *ref, size_t from,
		   const struct gd_list *l)
{
	struct gd_list tail = {
		.ent = ref->ent + from, .nr = ref->nr - from,
	};

	return gd_same(&tail, l);
}

static void offsets(const char *fs, const char *dir)
{
	struct gd_list ref = { 0 }, l = { 0 };
	static char buf[65536];
	size_t bad = 0, first_bad = 0;
	int fd, n, ret;

	gd_make_dir(dir, NR);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0, "open %s", dir);
	t_assert(gd_read_syscall(fd, sizeof(buf), &ref) == 0, "getdents64");
	t_assert(ref.nr == NR + 2 && gd_complete(&ref, NR), "reference");
	/* slot 0 holds the same open directory as fd */
	t_assert(io_uring_register_files_update(&ring, 0, &fd, 1) == 1,
		 "files update");

	/* restart: the stream is at its end; off 0 reads it all again */
	n = gd_getdents(&ring, 0, 1, buf, sizeof(buf), 0);
	gd_parse(&l, buf, n > 0 ? n : 0);
	t_check(n > 0 && is_tail(&ref, 0, &l),
		"%s: off 0 at end of directory restarts it (res %d, %zu of "
		"%zu records)", fs, n, l.nr, ref.nr);
	gd_list_free(&l);

	/* resume from every cookie */
	for (size_t i = 0; i < ref.nr; i++) {
		n = gd_getdents(&ring, 0, 1, buf, sizeof(buf), ref.ent[i].off);
		gd_parse(&l, buf, n > 0 ? n : 0);
		if (n < 0 || !is_tail(&ref, i + 1, &l)) {
			if (!bad++)
				first_bad = i;
		}
		gd_list_free(&l);
	}
	t_check(!bad, "%s: off = d_off of record i reads records i+1.. "
		"(%zu of %zu cookies wrong, first %zu)", fs, bad, ref.nr,
		first_bad);
	t_check_res(gd_getdents(&ring, 0, 1, buf, sizeof(buf),
				ref.ent[ref.nr - 1].off), 0,
		    "%s: the last d_off reads end of directory", fs);

	/* a positioned read moves the file position past what it read */
	n = gd_getdents(&ring, 0, 1, buf, 256, ref.ent[9].off);
	gd_parse(&l, buf, n > 0 ? n : 0);
	t_check(n > 0 && l.nr > 0 && !l.bad, "%s: positioned read of 256 "
		"bytes at record 10 (res %d)", fs, n);
	ret = gd_read_syscall(fd, sizeof(buf), &l);
	t_check(ret == 0 && is_tail(&ref, 10, &l),
		"%s: getdents64(2) continues where the positioned read ended",
		fs);
	gd_list_free(&l);

	/* interleave: syscall and GETDENTS at the file position, 256 bytes */
	t_assert(lseek(fd, 0, SEEK_SET) == 0, "rewind");
	for (int turn = 0, ends = 0; ends < 2; turn ^= 1) {
		n = turn ? gd_getdents(&ring, 0, 1, buf, 256, -1ULL) :
			   (int)getdents64(fd, buf, 256);
		t_assert(n >= 0, "read in turn %d: %d", turn, n);
		gd_parse(&l, buf, n);
		ends = n ? 0 : ends + 1;
	}
	t_check(is_tail(&ref, 0, &l),
		"%s: getdents64(2) and GETDENTS (off -1) alternating on one "
		"open directory read it once (%zu of %zu records)", fs, l.nr,
		ref.nr);
	gd_list_free(&l);

	/* a regular fd works the same as the slot */
	n = gd_getdents(&ring, fd, 0, buf, sizeof(buf), ref.ent[49].off);
	gd_parse(&l, buf, n > 0 ? n : 0);
	t_check(n > 0 && is_tail(&ref, 50, &l),
		"%s: positioned read through the regular fd", fs);
	gd_list_free(&l);

	t_assert(t_run(&ring, io_uring_prep_close_direct(__sqe, 0)) == 0,
		 "close slot 0");
	close(fd);
	gd_list_free(&ref);
	gd_remove_dir(dir, NR);
}

int main(void)
{
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	if (!gd_supported(&ring))
		return t_no_feature("IORING_OP_GETDENTS");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register files");

	gd_mount("tmpfs", "/tmp/getdents-off-tmpfs");
	offsets("tmpfs", "/tmp/getdents-off-tmpfs/d");
	gd_mount("ramfs", "/tmp/getdents-off-ramfs");
	offsets("ramfs", "/tmp/getdents-off-ramfs/d");
	umount("/tmp/getdents-off-tmpfs");
	umount("/tmp/getdents-off-ramfs");

	io_uring_queue_exit(&ring);
	return t_exit();
}
