// SPDX-License-Identifier: MIT
/*
 * Description: an ext4 htree directory whose first leaf block fails its
 * checksum on disk: getdents64(2) fails with -EBADMSG, and every further
 * call fails the same way, never giving an entry again and again. The
 * read of the first leaf fails after "." and ".." (which the htree root
 * holds) were put into ext4's name cache; mainline (since 42cb447410d0)
 * kept that part of the cache and gave "." and ".." from it on every
 * later call, for ever, a reader never reaching the end nor an error.
 * GETDENTS, on a descriptor and on a slot, gives what getdents64(2)
 * gives, call by call. The block is put back afterwards, and the
 * directory then lists as it did before. ext4 reports the bad block in the
 * kernel log each time it reads it: the test tells the log's scanners to
 * expect those reports, of that inode and block only (lib/splats.h).
 */
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>

#include "getdents-fixture.h"
#include "splats.h"

#define DISK "/dev/vda"
#define MNT "/tmp/getdents-badleaf"
#define TDIR MNT "/d"
#define NR 600		/* several leaves: an indexed directory */
#define CALLS 6		/* reads after the first error */

/* The physical byte offset of logical block @lblk of the file @fd. */
static off_t physical(int fd, unsigned long bsize, unsigned int lblk)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[32];
	} m = { .fm = { .fm_length = FIEMAP_MAX_OFFSET,
			.fm_flags = FIEMAP_FLAG_SYNC,
			.fm_extent_count = 32 } };
	off_t at = (off_t)lblk * bsize;

	t_assert(!ioctl(fd, FS_IOC_FIEMAP, &m), "FIEMAP");
	for (unsigned int i = 0; i < m.fm.fm_mapped_extents; i++) {
		struct fiemap_extent *e = &m.ext[i];

		if (at >= (off_t)e->fe_logical &&
		    at < (off_t)(e->fe_logical + e->fe_length))
			return e->fe_physical + (at - e->fe_logical);
	}
	t_assert(0, "block %u of the directory is not mapped", lblk);
	return -1;
}

/*
 * Tell the kernel log's scanners (lib/splats.h) to expect the reports of
 * this block, or (@text NULL) no more.
 */
static void expect_in_log(const char *text)
{
	char line[256];
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC), n;

	if (text)
		n = snprintf(line, sizeof(line), NOFD_EXPECT "%s\n", text);
	else
		n = snprintf(line, sizeof(line), NOFD_EXPECT_END "\n");
	t_assert(fd >= 0 && write(fd, line, n) == n && !close(fd),
		 "/dev/kmsg");
}

/* Read or write @bsize bytes at @off of the unmounted disk, O_DIRECT. */
static void disk_io(bool write_, off_t off, void *buf, unsigned long bsize)
{
	int fd = open(DISK, (write_ ? O_RDWR : O_RDONLY) | O_DIRECT |
		      O_CLOEXEC);
	ssize_t n;

	t_assert(fd >= 0, "open %s", DISK);
	n = write_ ? pwrite(fd, buf, bsize, off) : pread(fd, buf, bsize, off);
	t_assert(n == (ssize_t)bsize, "%s %s", write_ ? "pwrite" : "pread",
		 DISK);
	t_assert(!fsync(fd) && !close(fd), "fsync %s", DISK);
}

/*
 * Up to 1 + CALLS reads of the directory @fd (a slot with @ring and
 * @fixed, getdents64(2) without @ring): each result in @res, the records
 * in @l. Stops at 0.
 */
static int read_calls(struct io_uring *ring, int fd, int fixed, int *res,
		      struct gd_list *l)
{
	static char buf[4096];
	int n = 0;

	while (n < 1 + CALLS) {
		int r;

		if (ring) {
			r = gd_getdents(ring, fd, fixed, buf, sizeof(buf), 0);
		} else {
			r = getdents64(fd, buf, sizeof(buf));
			if (r < 0)
				r = -errno;
		}
		res[n++] = r;
		if (r > 0)
			gd_parse(l, buf, r);
		if (!r)
			break;
	}
	return n;
}

/* Whether some name in @l comes twice. */
static bool repeats(const struct gd_list *l)
{
	for (size_t i = 0; i < l->nr; i++)
		for (size_t j = i + 1; j < l->nr; j++)
			if (!strcmp(l->ent[i].name, l->ent[j].name))
				return true;
	return false;
}

static void check_reads(void)
{
	int sres[1 + CALLS], rres[1 + CALLS], ns, nr, fd, err = 0;
	struct gd_list sys = { 0 }, ring_l = { 0 };
	struct io_uring ring;
	const char *how[] = { "by descriptor", "by slot" };

	fd = open(TDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0, "open %s", TDIR);
	ns = read_calls(NULL, fd, 0, sres, &sys);
	close(fd);
	t_check_res(sres[0], -EBADMSG, "getdents64(2) of a directory whose "
		    "first leaf fails its checksum: -EBADMSG");
	for (int i = 1; i < ns; i++)
		if (sres[i] != -EBADMSG)
			err = sres[i];
	t_check(!err && ns == 1 + CALLS && !sys.nr, "... and so do the %d "
		"calls after it, with no entry (a call gave %d; %zu records)",
		CALLS, err, sys.nr);
	t_check(!repeats(&sys), "... no entry is given twice (%zu records)",
		sys.nr);

	t_assert(!io_uring_queue_init(4, &ring, IORING_SETUP_SINGLE_ISSUER |
				      IORING_SETUP_DEFER_TASKRUN), "ring");
	for (int fixed = 0; fixed < 2; fixed++) {
		bool same;

		fd = open(TDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		t_assert(fd >= 0, "open %s", TDIR);
		if (fixed) {
			t_assert(!io_uring_register_files(&ring, &fd, 1),
				 "register");
			close(fd);
			fd = 0;
		}
		nr = read_calls(&ring, fd, fixed, rres, &ring_l);
		same = nr == ns && gd_same(&sys, &ring_l);
		for (int i = 0; same && i < nr; i++)
			same = rres[i] == sres[i];
		t_check(same, "GETDENTS %s gives getdents64(2)'s results and "
			"records, call by call (%d calls, first %d; %zu records)",
			how[fixed], nr, rres[0], ring_l.nr);
		if (fixed)
			t_assert(!io_uring_unregister_files(&ring), "unregister");
		else
			close(fd);
		gd_list_free(&ring_l);
	}
	io_uring_queue_exit(&ring);
	gd_list_free(&sys);
}

int main(void)
{
	struct gd_list ref = { 0 }, after = { 0 };
	unsigned long bsize;
	unsigned char *root, *leaf, *saved;
	unsigned int lblk;
	struct statfs sfs;
	struct stat st;
	char text[64];
	off_t rootoff, leafoff;
	int fd, flags;

	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	if (access(DISK, F_OK))
		return t_no_feature("an ext4 scratch disk at " DISK
				    " (vm/run.sh --disk)");
	t_assert(!mkdir(MNT, 0755) || errno == EEXIST, "mkdir %s", MNT);
	t_assert(!mount(DISK, MNT, "ext4", 0, NULL), "mount %s", DISK);
	gd_make_dir(TDIR, NR);
	t_assert(!statfs(MNT, &sfs), "statfs");
	bsize = sfs.f_bsize;

	fd = open(TDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0 && !ioctl(fd, FS_IOC_GETFLAGS, &flags) &&
		 (flags & FS_INDEX_FL), "%s is an indexed directory", TDIR);
	t_assert(!gd_read_syscall(fd, 4096, &ref) && ref.nr == NR + 2,
		 "getdents64 of %s", TDIR);
	rootoff = physical(fd, bsize, 0);
	close(fd);
	sync();

	/* the htree root's first index entry: the leaf of hash 0 */
	t_assert(!posix_memalign((void **)&root, 4096, bsize) &&
		 !posix_memalign((void **)&leaf, 4096, bsize) &&
		 (saved = malloc(bsize)), "malloc");
	t_assert(t_wait_for(!umount(MNT)), "umount %s", MNT);
	disk_io(false, rootoff, root, bsize);
	lblk = root[36] | root[37] << 8 | root[38] << 16 |
	       (unsigned int)root[39] << 24;
	t_assert(!mount(DISK, MNT, "ext4", 0, NULL), "mount %s", DISK);
	fd = open(TDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0 && lblk > 0, "the first leaf (block %u)", lblk);
	leafoff = physical(fd, bsize, lblk);
	t_assert(!fstat(fd, &st), "fstat");
	close(fd);

	/* a byte of the first entry's name changed: a bad checksum */
	t_assert(t_wait_for(!umount(MNT)), "umount %s", MNT);
	disk_io(false, leafoff, leaf, bsize);
	memcpy(saved, leaf, bsize);
	leaf[8] ^= 0x20;
	disk_io(true, leafoff, leaf, bsize);
	t_assert(!mount(DISK, MNT, "ext4", 0, NULL), "mount %s", DISK);

	/* ext4 reports the block each time it reads it: "inode #I: block B:" */
	snprintf(text, sizeof(text), "inode #%lu: block %u: ",
		 (unsigned long)st.st_ino, lblk);
	expect_in_log(text);
	check_reads();

	/* the block as it was: the directory lists as before */
	t_assert(t_wait_for(!umount(MNT)), "umount %s", MNT);
	memcpy(leaf, saved, bsize);
	disk_io(true, leafoff, leaf, bsize);
	expect_in_log(NULL);
	t_assert(!mount(DISK, MNT, "ext4", 0, NULL), "mount %s", DISK);
	fd = open(TDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0 && !gd_read_syscall(fd, 4096, &after),
		 "getdents64 of %s", TDIR);
	close(fd);
	t_check(gd_same(&ref, &after), "with its leaf put back, %s lists as "
		"before (%zu of %zu records)", TDIR, after.nr, ref.nr);
	gd_remove_dir(TDIR, NR);
	t_check_umount(MNT);
	gd_list_free(&ref);
	gd_list_free(&after);
	free(root);
	free(leaf);
	free(saved);
	return t_exit();
}
