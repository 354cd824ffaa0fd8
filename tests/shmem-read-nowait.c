/* SPDX-License-Identifier: MIT */
/*
 * Description: a READ of a tmpfs file whose folios are in memory completes
 * inline (kernel topic 07-shmem-nowait), with the result and bytes pread(2)
 * gives in the same state: regular fd and slot, holes, the end of the file,
 * a fallocated range, a file being truncated beside it, a procfs file
 * opened O_NONBLOCK (its short read not retried past pread(2)'s end);
 * preadv2(RWF_NOWAIT) reads tmpfs as pread(2) does. A page that is swapped
 * out is not read without waiting: preadv2(RWF_NOWAIT) fails with -EAGAIN
 * and leaves it out and the atime as it was, a READ goes to io-wq and
 * gives pread(2)'s bytes. Writes are not tried without waiting: pwritev2
 * with RWF_NOWAIT fails as before, a WRITE with RWF_NOWAIT as on ext4, a
 * WRITE (buffered or O_DIRECT) writes. (A fanotify permission listener:
 * tests/read-perm-event.)
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/uio.h>

#include "test.h"

#define TMP "/tmp/shmem-read-nowait"
#define MNT TMP "/tmpfs"
#define EXT4 TMP "/ext4"
#define SWAPFILE EXT4 "/swap"
#define FILE_PATH MNT "/f"
#define SLOT 0
#define MAX_LEN (1 << 20)

static unsigned char want[MAX_LEN + 8192], got[MAX_LEN + 8192];

static int ring_read(struct io_uring *ring, int fd, bool fixed, void *buf,
		     size_t len, off_t off, int rw_flags)
{
	return t_run(ring, ({
		io_uring_prep_read(t_sqe, fixed ? SLOT : fd, buf, len, off);
		t_sqe->rw_flags = rw_flags;
		if (fixed)
			t_sqe->flags |= IOSQE_FIXED_FILE;
	}));
}

static int ring_write(struct io_uring *ring, int fd, int rw_flags)
{
	return t_run(ring, ({
		io_uring_prep_write(t_sqe, fd, "nowait", 6, 0);
		t_sqe->rw_flags = rw_flags;
	}));
}

/* One READ of @len at @off, by fd and by slot, against pread(2). */
static void compare(struct io_uring *ring, int fd, size_t len, off_t off,
		    const char *what)
{
	int ref = t_sys(pread(fd, want, len, off));

	for (int fixed = 0; fixed < 2; fixed++) {
		int res;

		memset(got, 0xee, len);
		res = ring_read(ring, fd, fixed, got, len, off, 0);
		t_check(res == ref && (res <= 0 || !memcmp(got, want, res)),
			"%s, %zu at %lld, %s: %d bytes, pread(2)'s (%d)", what,
			len, (long long)off, fixed ? "slot" : "fd", res, ref);
	}
}

/* Files of several sizes, each read at its start, middle and end. */
static void sizes(struct io_uring *ring)
{
	static const size_t size[] = { 0, 1, 4095, 4096, 4097, 65659, MAX_LEN };

	for (size_t i = 0; i < sizeof(size) / sizeof(size[0]); i++) {
		size_t s = size[i];
		const off_t off[] = { 0, s / 2, s ? s - 1 : 0, s, s + 10 };
		const size_t len[] = { 1, 4096, s + 100 };
		char what[64];
		int fd = open(t_make_file(FILE_PATH, s), O_RDONLY);

		t_assert(fd >= 0, "open");
		t_assert(io_uring_register_files_update(ring, SLOT, &fd, 1) == 1,
			 "files update");
		snprintf(what, sizeof(what), "a file of %zu bytes", s);
		for (size_t o = 0; o < 5; o++)
			for (size_t l = 0; l < 3; l++)
				compare(ring, fd, len[l], off[o], what);
		close(fd);
	}
}

/* Holes between written pages, and a file longer than its last page. */
static void holes(struct io_uring *ring)
{
	int fd = open(FILE_PATH, O_RDWR | O_CREAT | O_TRUNC, 0644);

	t_assert(fd >= 0, "open");
	t_assert(!ftruncate(fd, MAX_LEN), "ftruncate");
	memset(want, 'h', 6000);
	t_assert(pwrite(fd, want, 6000, 262144 + 100) == 6000, "pwrite");
	t_assert(io_uring_register_files_update(ring, SLOT, &fd, 1) == 1,
		 "files update");
	compare(ring, fd, MAX_LEN, 0, "a sparse file, whole");
	compare(ring, fd, 20000, 262144 - 4096, "a sparse file, across data");
	compare(ring, fd, 4096, 524288, "a sparse file, a hole");
	close(fd);
}

/*
 * A fallocated range that was never written reads as zeroes; a READ of it
 * and of the written pages around it completes inline all the same.
 */
static void fallocated(struct io_uring *ring)
{
	int fd = open(FILE_PATH, O_RDWR | O_CREAT | O_TRUNC, 0644), res, ref;
	struct iovec iov = { got, 65536 };

	t_assert(fd >= 0, "open");
	memset(want, 'w', 16384);
	t_assert(pwrite(fd, want, 16384, 0) == 16384, "pwrite");
	t_assert(!fallocate(fd, 0, 16384, 16384), "fallocate");
	t_assert(pwrite(fd, want, 16384, 49152) == 16384, "pwrite");
	t_assert(!fallocate(fd, 0, 65536, 65536), "fallocate");
	t_assert(io_uring_register_files_update(ring, SLOT, &fd, 1) == 1,
		 "files update");
	compare(ring, fd, 131072, 0, "written, fallocated, written, "
		"fallocated");
	compare(ring, fd, 4096, 20480, "a fallocated page");
	ref = t_sys(pread(fd, want, 65536, 0));
	res = t_sys(preadv2(fd, &iov, 1, 0, RWF_NOWAIT));
	t_check(res == ref && !memcmp(got, want, 65536),
		"preadv2(RWF_NOWAIT) across a fallocated range: %d bytes, "
		"pread(2)'s (%d)", res, ref);
	close(fd);
}

/*
 * A regular file whose i_size is not its length (procfs: 0), opened
 * O_NONBLOCK so that the READ is tried inline: it ends where pread(2)
 * ends, one page of the seq_file, and is not retried past it.
 */
static void procfs(struct io_uring *ring)
{
	void *maps[160];
	int fd, res, ref;

	/* mappings that do not merge: a list of more than a page */
	for (int i = 0; i < 160; i++) {
		maps[i] = mmap(NULL, 4096, i % 2 ? PROT_READ : PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t_assert(maps[i] != MAP_FAILED, "mmap");
	}
	fd = open("/proc/self/maps", O_RDONLY | O_NONBLOCK);
	t_assert(fd >= 0, "open /proc/self/maps");
	memset(got, 0, 262144);
	res = ring_read(ring, fd, false, got, 262144, 0, 0);
	ref = t_sys(pread(fd, want, 262144, 0));
	t_check(res == ref && ref > 0 && !memcmp(got, want, ref),
		"/proc/self/maps, O_NONBLOCK: a READ gives pread(2)'s %d "
		"bytes: %d", ref, res);
	t_check(t_sys(pread(fd, want, 4096, ref)) > 0,
		"of a list that goes on past them");
	close(fd);
	for (int i = 0; i < 160; i++)
		munmap(maps[i], 4096);
}

/* preadv2(RWF_NOWAIT) and a READ with RWF_NOWAIT read as pread(2) does. */
static void rwf_nowait(struct io_uring *ring)
{
	int fd = open(t_make_file(FILE_PATH, 70000), O_RDONLY), ref, res;
	struct iovec iov = { got, 70000 };

	t_assert(fd >= 0, "open");
	ref = t_sys(pread(fd, want, 70000, 3));
	res = t_sys(preadv2(fd, &iov, 1, 3, RWF_NOWAIT));
	t_check(res == ref && res > 0 && !memcmp(got, want, res),
		"preadv2(RWF_NOWAIT) of a tmpfs file: %d bytes, pread(2)'s (%d)",
		res, ref);
	memset(got, 0, sizeof(got));
	res = ring_read(ring, fd, false, got, 70000, 3, RWF_NOWAIT);
	t_check(res == ref && !memcmp(got, want, ref),
		"READ with RWF_NOWAIT: %d bytes, pread(2)'s (%d)", res, ref);
	close(fd);
}

/* A write is not tried without waiting; it still writes. */
static void writes(struct io_uring *ring)
{
	int fd = open(t_make_file(FILE_PATH, 8192), O_RDWR), dfd, res;
	struct iovec iov = { (void *)"xyz", 3 };

	t_assert(fd >= 0, "open");
	res = pwritev2(fd, &iov, 1, 0, RWF_NOWAIT);
	/* no syscall writes tmpfs without waiting: tmpfs's answer before */
	t_check(res == -1 && errno == EOPNOTSUPP,
		"pwritev2(RWF_NOWAIT) on tmpfs fails with -EOPNOTSUPP (%d %s)",
		res, res < 0 ? strerror(errno) : "-");
	t_check(t_sys(pread(fd, got, 3, 0)) == 3 && !memcmp(got, "abc", 3),
		"and writes nothing");

	res = t_run(ring, io_uring_prep_write(t_sqe, fd, "WRITE", 5, 10));
	t_check(res == 5 && t_sys(pread(fd, got, 5, 10)) == 5 &&
		!memcmp(got, "WRITE", 5), "a WRITE writes: %d", res);
	dfd = open(FILE_PATH, O_RDWR | O_DIRECT);
	t_assert(dfd >= 0, "open O_DIRECT");
	memset(want, 'D', 4096);
	res = t_run(ring, io_uring_prep_write(t_sqe, dfd, want, 4096, 4096));
	t_check(res == 4096 && t_sys(pread(fd, got, 4096, 4096)) == 4096 &&
		!memcmp(got, want, 4096), "an O_DIRECT WRITE writes: %d", res);
	close(dfd);
	close(fd);
}

static volatile int stop;

/* Beside the reads: the file cut short, grown back with zeroes, refilled. */
static void *truncator(void *arg)
{
	int fd = *(int *)arg;

	while (!stop) {
		t_assert(!ftruncate(fd, 10000), "ftruncate");
		t_assert(!ftruncate(fd, 200000), "ftruncate");
		t_assert(pwrite(fd, want, 200000, 0) == 200000, "pwrite");
	}
	return NULL;
}

static void truncated(struct io_uring *ring)
{
	int fd = open(t_make_file(FILE_PATH, 200000), O_RDWR), bad = 0;
	pthread_t thread;

	t_assert(fd >= 0, "open");
	t_assert(pread(fd, want, 200000, 0) == 200000, "pread");
	t_assert(!pthread_create(&thread, NULL, truncator, &fd), "thread");
	for (int i = 0; i < 300; i++) {
		int res = ring_read(ring, fd, false, got, 200000, 0, 0);

		/* each byte the file's, or a zero of the grown-back part */
		if (res < 0 || res > 200000)
			bad++;
		for (int j = 0; j < res; j++)
			if (got[j] != want[j] && (got[j] || j < 10000)) {
				bad++;
				break;
			}
	}
	stop = 1;
	pthread_join(thread, NULL);
	t_check(!bad, "300 READs while the file is cut and refilled: "
		"%d gave a byte the file never held", bad);
	close(fd);
}

/* The kB of swap that the mapping at @addr uses, from smaps. */
static long swapped_kb(void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	long kb = -1;
	bool in = false;

	t_assert(f, "smaps");
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = start == (unsigned long)addr;
		else if (in && !strncmp(line, "Swap:", 5))
			kb = strtol(line + 5, NULL, 10);
	}
	fclose(f);
	return kb;
}

/* A swap file of @pages pages: header page, version 1, no bad pages. */
static void make_swapfile(const char *path, unsigned int pages)
{
	long psize = sysconf(_SC_PAGESIZE);
	unsigned char *page = calloc(1, psize);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	unsigned int v[3] = { 1, pages - 1, 0 };	/* version, last, bad */

	t_assert(page && fd >= 0, "create %s", path);
	memcpy(page + 1024, v, sizeof(v));
	memcpy(page + psize - 10, "SWAPSPACE2", 10);
	t_assert(write(fd, page, psize) == psize, "write");
	memset(page, 0, psize);
	for (unsigned int i = 1; i < pages; i++)
		t_assert(write(fd, page, psize) == psize, "write");
	t_assert(!fsync(fd), "fsync");
	close(fd);
	free(page);
}

/*
 * A WRITE with RWF_NOWAIT is not tried without waiting on tmpfs, and fails
 * as the same WRITE of an ext4 file does (ext4's buffered writes refuse
 * IOCB_NOWAIT as tmpfs's now do).
 */
static void nowait_write_twin(struct io_uring *ring, int tmpfs_fd)
{
	int fd = open(EXT4 "/w", O_RDWR | O_CREAT | O_TRUNC, 0644), res, ref;

	t_assert(fd >= 0, "open on ext4");
	ref = ring_write(ring, fd, RWF_NOWAIT);
	res = ring_write(ring, tmpfs_fd, RWF_NOWAIT);
	t_check(res == ref && ref < 0, "a WRITE with RWF_NOWAIT fails on tmpfs "
		"as on ext4: %d, ext4's %d", res, ref);
	close(fd);
	unlink(EXT4 "/w");
}

/* A page swapped out is read through io-wq, never without waiting. */
static void swapped(void)
{
	const size_t len = 65536;
	int fd, res, ref;
	struct io_uring ring;
	struct iovec iov = { got, len };
	struct stat before, after;
	unsigned char *map;
	long kb = 0;

	t_assert(!mount("/dev/vda", EXT4, "ext4", 0, NULL), "mount /dev/vda");
	make_swapfile(SWAPFILE, 1024);
	t_assert(!swapon(SWAPFILE, 0), "swapon");
	fd = open(t_make_file(FILE_PATH, len), O_RDWR);
	t_assert(fd >= 0, "open");
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	t_assert(map != MAP_FAILED, "mmap");
	for (int i = 0; i < 50 && kb < (long)len / 1024; i++) {
		for (size_t o = 0; o < len; o += 4096)
			(void)*(volatile unsigned char *)(map + o);
		madvise(map, len, MADV_PAGEOUT);
		kb = swapped_kb(map);
		if (kb < (long)len / 1024)
			usleep(100000);
	}
	t_assert(kb >= (long)len / 1024, "the file swapped out (%ld kB)", kb);

	/* an atime due (relatime: older than a day), to see it kept */
	t_assert(!futimens(fd, (struct timespec[2]){ { time(NULL) - 172800, 0 },
						     { 0, UTIME_OMIT } }),
		 "futimens");
	t_assert(!fstat(fd, &before), "fstat");
	res = t_sys(preadv2(fd, &iov, 1, 0, RWF_NOWAIT));
	t_check(res == -EAGAIN, "preadv2(RWF_NOWAIT) of a swapped-out page "
		"fails with -EAGAIN (%d)", res);
	t_check(swapped_kb(map) == kb, "and swaps nothing in (%ld kB of %ld "
		"still out)", swapped_kb(map), kb);
	t_assert(!fstat(fd, &after), "fstat");
	t_check(!t_ts_after(after.st_atim, before.st_atim),
		"and leaves the atime as it was, for the read that follows");

	t_assert(!io_uring_queue_init(8, &ring, 0), "ring");
	res = ring_read(&ring, fd, false, got, len, 0, 0);
	t_check(t_io_wq_workers() >= 1, "a READ of it goes to io-wq "
		"(%d workers)", t_io_wq_workers());
	ref = t_sys(pread(fd, want, len, 0));
	t_check(res == ref && ref == (int)len && !memcmp(got, want, len),
		"and gives pread(2)'s %d bytes: %d", ref, res);
	t_assert(!fstat(fd, &after), "fstat");
	t_check(t_ts_after(after.st_atim, before.st_atim),
		"and updates the atime, as pread(2) would");
	nowait_write_twin(&ring, fd);
	io_uring_queue_exit(&ring);
	munmap(map, len);
	close(fd);
	t_check(!swapoff(SWAPFILE), "swapoff");
	unlink(SWAPFILE);
	t_check_umount(EXT4);
}

int main(void)
{
	struct io_uring ring;
	int slots[1] = { -1 };

	t_assert(!mkdir(TMP, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mkdir(MNT, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mkdir(EXT4, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mount("tmpfs", MNT, "tmpfs", 0, "size=16m"), "mount tmpfs");

	if (!t_tmpfs_reads_nowait(MNT)) {
		umount(MNT);
		return t_no_feature("tmpfs reads that honour RWF_NOWAIT");
	}
	if (access("/dev/vda", F_OK)) {
		umount(MNT);
		return t_no_feature("an ext4 scratch disk at /dev/vda for swap "
				    "(vm/run.sh --disk)");
	}

	t_assert(!io_uring_queue_init(8, &ring, 0), "ring");
	t_assert(!io_uring_register_files(&ring, slots, 1), "register files");
	sizes(&ring);
	holes(&ring);
	fallocated(&ring);
	procfs(&ring);
	rwf_nowait(&ring);
	t_check(t_io_wq_workers() == 0, "every READ so far completed inline: "
		"no io-wq worker (%d)", t_io_wq_workers());
	/* a folio a racing write has not filled yet goes to io-wq */
	truncated(&ring);
	writes(&ring);
	io_uring_queue_exit(&ring);
	t_assert(t_wait_for(t_io_wq_workers() == 0), "the workers exit");

	swapped();
	t_check_umount(MNT);
	return t_exit();
}
