// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_GETDENTS reads at the file position, which it
 * shares with getdents64(2) and lseek(2) on the same open directory.
 * IORING_GETDENTS_REWIND starts at the beginning: at the end of the
 * directory, in the middle of it, through a direct descriptor or a regular
 * fd; and leaves the position after what it read, where getdents64(2)
 * continues. GETDENTS and getdents64(2) alternating on one open directory
 * read it once, with no record twice or missing. On tmpfs (inline) and
 * ramfs (io-wq), through a direct descriptor that shares the struct file
 * with a regular fd.
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

/* REWIND with a @len-byte buffer, parsed into @l; returns cqe->res. */
static int rewind_read(int fd, int fixed, unsigned int len, struct gd_list *l)
{
	static char buf[65536];
	int n = gd_getdents(&ring, fd, fixed, buf, len,
			    IORING_GETDENTS_REWIND);

	gd_parse(l, buf, n > 0 ? n : 0);
	return n;
}

static void position(const char *fs, const char *dir)
{
	struct gd_list ref = { 0 }, l = { 0 };
	static char buf[65536];
	int fd, n, ret;

	gd_make_dir(dir, NR);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0, "open %s", dir);
	t_assert(gd_read_syscall(fd, sizeof(buf), &ref) == 0, "getdents64");
	t_assert(ref.nr == NR + 2 && gd_complete(&ref, NR), "reference");
	/* slot 0 holds the same open directory as fd */
	t_assert(io_uring_register_files_update(&ring, 0, &fd, 1) == 1,
		 "files update");

	/* at the end: GETDENTS at the position gives 0, REWIND all again */
	t_check_res(gd_getdents(&ring, 0, 1, buf, sizeof(buf), 0), 0,
		    "%s: at the end of the directory GETDENTS returns 0", fs);
	n = rewind_read(0, 1, sizeof(buf), &l);
	t_check(n > 0 && is_tail(&ref, 0, &l),
		"%s: REWIND at the end reads the directory again (res %d, %zu "
		"of %zu records)", fs, n, l.nr, ref.nr);
	gd_list_free(&l);

	/* REWIND in the middle, 256 bytes: then getdents64(2) continues */
	t_assert(lseek(fd, ref.ent[49].off, SEEK_SET) == ref.ent[49].off,
		 "lseek to record 50");
	n = rewind_read(0, 1, 256, &l);
	t_check(n > 0 && l.nr > 0 && l.nr < ref.nr && !l.bad,
		"%s: REWIND from the middle, 256 bytes: %zu records (res %d)",
		fs, l.nr, n);
	ret = gd_read_syscall(fd, sizeof(buf), &l);
	t_check(ret == 0 && is_tail(&ref, 0, &l),
		"%s: getdents64(2) continues where the REWIND read ended: "
		"the whole directory once (%zu of %zu records)", fs, l.nr,
		ref.nr);
	gd_list_free(&l);

	/* alternate: getdents64(2) and GETDENTS, 256 bytes each */
	t_assert(lseek(fd, 0, SEEK_SET) == 0, "rewind");
	for (int turn = 0, ends = 0; ends < 2; turn ^= 1) {
		n = turn ? gd_getdents(&ring, 0, 1, buf, 256, 0) :
			   (int)getdents64(fd, buf, 256);
		t_assert(n >= 0, "read in turn %d: %d", turn, n);
		gd_parse(&l, buf, n);
		ends = n ? 0 : ends + 1;
	}
	t_check(is_tail(&ref, 0, &l),
		"%s: getdents64(2) and GETDENTS alternating on one open "
		"directory read it once (%zu of %zu records)", fs, l.nr,
		ref.nr);
	gd_list_free(&l);

	/* lseek(2) moves what GETDENTS reads */
	t_assert(lseek(fd, ref.ent[9].off, SEEK_SET) == ref.ent[9].off,
		 "lseek to record 10");
	ret = gd_read_ring(&ring, 0, 1, sizeof(buf), &l);
	t_check(ret == 0 && is_tail(&ref, 10, &l),
		"%s: after lseek(2) to the d_off of record 9, GETDENTS reads "
		"records 10.. (%zu records)", fs, l.nr);
	gd_list_free(&l);

	/* a regular fd works the same as the slot */
	n = rewind_read(fd, 0, sizeof(buf), &l);
	t_check(n > 0 && is_tail(&ref, 0, &l),
		"%s: REWIND through the regular fd reads it all", fs);
	gd_list_free(&l);

	t_assert(t_run(&ring, io_uring_prep_close_direct(t_sqe, 0)) == 0,
		 "close slot 0");
	close(fd);
	gd_list_free(&ref);
	gd_remove_dir(dir, NR);
}

int main(void)
{
	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register files");

	gd_mount("tmpfs", "/tmp/getdents-pos-tmpfs");
	position("tmpfs", "/tmp/getdents-pos-tmpfs/d");
	gd_mount("ramfs", "/tmp/getdents-pos-ramfs");
	position("ramfs", "/tmp/getdents-pos-ramfs/d");
	io_uring_queue_exit(&ring);
	t_check_umount("/tmp/getdents-pos-tmpfs");
	t_check_umount("/tmp/getdents-pos-ramfs");
	return t_exit();
}
