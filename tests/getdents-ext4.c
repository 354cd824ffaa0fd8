// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_GETDENTS on ext4 completes inline when the blocks
 * it needs are cached, and goes to io-wq when they are not, with the
 * records getdents64(2) gives either way. Both ways ext4 lists a
 * directory: with dir_index (the guest's /dev/vda; htree order, for a
 * directory of one block and for an indexed one) and without (/dev/vdb;
 * linear, one block and many). A directory read once by getdents64(2) is
 * read again by GETDENTS with no io-wq worker; after its blocks are
 * dropped (sync, drop_caches) or when its atime is due (an entry was
 * added since it was read: relatime), GETDENTS goes through io-wq, and
 * leaves no trace of the inline try: one access event per request, as
 * getdents64(2) gives one per call (fanotify, FAN_REPORT_TID: the inline
 * try and the worker are different threads, so that two events would not
 * be merged into one), the atime updated as getdents64(2) updates it, and
 * a position, rewound or not, that goes on where getdents64(2) would.
 * Partly cached (a review found these wrong in the first version): an
 * htree directory whose root and one leaf (the first, or the last) a
 * lookup read after a remount lists each entry once, each record with
 * getdents64(2)'s d_off, though requests go inline and to io-wq in turn;
 * a linear directory read from an lseek() into the middle of a record, its
 * next block not cached, gives getdents64(2)'s records from there and no
 * ext4 error in the kernel log; and read from its start, the request that
 * stops before that block gives its last record getdents64(2)'s d_off,
 * the next live entry's position, when the block starts with a deleted
 * entry and when it has no live one (v10 gave the block's start).
 */
#include <sys/fanotify.h>
#include <sys/klog.h>
#include <sys/wait.h>

#include "getdents-fixture.h"

#define TMP "/tmp/getdents-ext4"
#define SMALL 20	/* one block */
#define BIG 1500	/* many blocks; indexed with dir_index */

static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	t_assert(fd >= 0 && write(fd, "3", 1) == 1, "drop_caches");
	close(fd);
}

static struct timespec atime_of(const char *dir)
{
	struct stat st;

	t_assert(!stat(dir, &st), "stat %s", dir);
	return st.st_atim;
}

/*
 * Whether relatime would leave @dir's atime as it is: it is newer than
 * its mtime and ctime. A read right after the directory changed may give
 * it a coarse-clock atime no newer than a fine-grained mtime (multigrain
 * timestamps), and the next read then updates it again.
 */
static bool atime_current(const char *dir)
{
	struct stat st;

	t_assert(!stat(dir, &st), "stat %s", dir);
	return t_ts_after(st.st_atim, st.st_mtim) &&
	       t_ts_after(st.st_atim, st.st_ctim);
}

/* FAN_ACCESS events waiting on @fan, read without blocking. */
static int access_events(int fan)
{
	char buf[4096] __attribute__((aligned(8)));
	int n = 0;
	ssize_t len;

	while ((len = read(fan, buf, sizeof(buf))) > 0) {
		struct fanotify_event_metadata *ev = (void *)buf;

		for (; FAN_EVENT_OK(ev, len); ev = FAN_EVENT_NEXT(ev, len)) {
			n += !!(ev->mask & FAN_ACCESS);
			if (ev->fd >= 0)
				close(ev->fd);
		}
	}
	return n;
}

/*
 * In a child, so that the io-wq workers counted are this case's own: read
 * @dir from its start with GETDENTS (4 KiB buffers) on a fresh ring, and
 * check the records against @ref, the workers (none when @inline_, some
 * otherwise) and the access events (one per request).
 */
static void ring_case(const char *what, const char *dir, bool inline_,
		      const struct gd_list *ref)
{
	pid_t pid = fork();
	int status;

	t_assert(pid >= 0, "fork");
	if (!pid) {
		struct gd_list l = { 0 };
		int fd, fan, ret, workers, requests = 0, events = 0, odd = 0;
		struct io_uring ring;
		char buf[4096];
		int eof = 0;

		t_failures = 0;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_TID |
				    FAN_NONBLOCK | FAN_CLOEXEC, O_RDONLY);
		t_assert(fd >= 0 && fan >= 0 &&
			 !fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS | FAN_ONDIR,
					AT_FDCWD, dir), "fanotify");
		t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
		do {
			int n;

			ret = gd_getdents_eof(&ring, fd, 0, buf, sizeof(buf), 0,
					      &eof);
			requests++;
			if (ret > 0)
				gd_parse(&l, buf, ret);
			/* each request's own, so that none are merged */
			n = access_events(fan);
			events += n;
			odd += n != 1;
		} while (ret > 0 && !eof);
		workers = t_io_wq_workers();
		t_check(ret >= 0 && gd_same(ref, &l), "%s: GETDENTS reads the "
			"%zu records of getdents64(2) (res %d, %zu records)",
			what, ref->nr, ret, l.nr);
		t_check(inline_ ? workers == 0 : workers > 0,
			"%s: %s (%d io-wq workers)", what,
			inline_ ? "completed inline" : "went through io-wq",
			workers);
		t_check(!odd && events == requests, "%s: one access event per "
			"request, as per getdents64(2) call (%d for %d)", what,
			events, requests);
		io_uring_queue_exit(&ring);
		close(fan);
		gd_list_free(&l);
		_exit(t_failures ? 1 : 0);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && !WEXITSTATUS(status),
		"%s: its checks pass", what);
}

static void reference(const char *dir, struct gd_list *ref)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	t_assert(fd >= 0 && !gd_read_syscall(fd, 4096, ref), "getdents64");
	close(fd);
}

/* A directory of @nr entries on the ext4 at @mnt: warm, cold, atime due. */
static void dir_cases(const char *fs, const char *mnt, unsigned int nr)
{
	struct gd_list ref = { 0 }, again = { 0 };
	struct timespec before, after;
	char dir[256], what[128], path[300];
	int fd;

	snprintf(dir, sizeof(dir), "%s/d%u", mnt, nr);
	gd_make_dir(dir, nr);
	/* past a tick of the coarse clock, so that the read's atime is
	 * newer than what making the directory left */
	usleep(20 * 1000);
	reference(dir, &ref);	/* and the atime updated */
	t_assert(ref.nr == nr + 2, "%s: %u entries", dir, nr);
	t_assert(atime_current(dir), "%s: the atime is no longer due", dir);

	snprintf(what, sizeof(what), "%s, %u entries, read before", fs, nr);
	ring_case(what, dir, true, &ref);

	drop_caches();
	snprintf(what, sizeof(what), "%s, %u entries, cold", fs, nr);
	ring_case(what, dir, false, &ref);

	/* a new entry: the atime is due (relatime), GETDENTS updates it */
	snprintf(path, sizeof(path), "%s/new", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	t_assert(fd >= 0, "create %s", path);
	close(fd);
	before = atime_of(dir);
	usleep(20 * 1000);
	reference(dir, &again);
	after = atime_of(dir);
	t_assert(after.tv_sec != before.tv_sec ||
		 after.tv_nsec != before.tv_nsec, "getdents64 updates atime");
	t_assert(!unlink(path), "unlink");
	before = after;
	usleep(20 * 1000);
	snprintf(what, sizeof(what), "%s, %u entries, atime due", fs, nr);
	ring_case(what, dir, false, &ref);
	after = atime_of(dir);
	t_check(after.tv_sec != before.tv_sec ||
		after.tv_nsec != before.tv_nsec,
		"%s: the atime was updated, as getdents64(2) updates it", what);

	gd_list_free(&ref);
	gd_list_free(&again);
	gd_remove_dir(dir, nr);
}

/*
 * In a child, so that the io-wq workers counted are its own: GETDENTS of
 * @fd, its blocks dropped, on a fresh ring, from the position @fd has (or
 * from the start, with REWIND) to the end, 4 KiB at a time. The read goes
 * through io-wq (a worker was created), and its records are @ref's from
 * its record @from on, as getdents64(2) gives them. Not necessarily its
 * first request: from where getdents64(2) stopped in an htree directory,
 * the rest of the leaf it read is still in the file's name cache.
 */
static void position_case(const char *what, int fd, bool rewind,
			  const struct gd_list *ref, size_t from)
{
	pid_t pid;
	int status;

	drop_caches();
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		struct gd_list l = { 0 }, tail = {
			.ent = ref->ent + from, .nr = ref->nr - from,
		};
		struct io_uring ring;
		int n, workers;
		char buf[4096];

		t_failures = 0;
		t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
		n = gd_getdents(&ring, fd, 0, buf, sizeof(buf),
				rewind ? IORING_GETDENTS_REWIND : 0);
		if (n > 0)
			gd_parse(&l, buf, n);
		t_check(n > 0 && !gd_read_ring(&ring, fd, 0, 4096, &l) &&
			gd_same(&tail, &l), "%s: GETDENTS reads the %zu "
			"records getdents64(2) reads from there (res %d, %zu "
			"records)", what, tail.nr, n, l.nr);
		workers = t_io_wq_workers();
		t_check(workers > 0, "%s: the read went through io-wq (%d "
			"io-wq workers)", what, workers);
		io_uring_queue_exit(&ring);
		gd_list_free(&l);
		_exit(t_failures ? 1 : 0);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && !WEXITSTATUS(status),
		"%s: its checks pass", what);
}

/*
 * Unmount @mnt and mount @disk there again: the block device's last close
 * drops its cache, and the journal no longer holds the blocks of what was
 * just written (drop_caches cannot drop a block the journal holds).
 */
static void remount(const char *disk, const char *mnt)
{
	t_assert(t_wait_for(!umount(mnt)), "umount %s", mnt);
	t_assert(!mount(disk, mnt, "ext4", 0, NULL), "mount %s", disk);
}

/*
 * A cold GETDENTS at a position getdents64(2) left, and one that rewinds:
 * each goes to io-wq and goes on where getdents64(2) would. The directory
 * is new: remounted first, so that its blocks can be dropped.
 */
static void position_cases(const char *fs, const char *disk, const char *mnt)
{
	struct gd_list ref = { 0 }, head = { 0 };
	char dir[256], what[128], buf[1024];
	int fd, n;

	snprintf(dir, sizeof(dir), "%s/pos", mnt);
	gd_make_dir(dir, BIG);
	reference(dir, &ref);
	remount(disk, mnt);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0, "open %s", dir);
	n = getdents64(fd, buf, sizeof(buf));
	t_assert(n > 0, "getdents64");
	gd_parse(&head, buf, n);
	t_assert(head.nr < ref.nr, "getdents64 read only a part");
	snprintf(what, sizeof(what), "%s, cold, from where getdents64(2) "
		 "stopped", fs);
	position_case(what, fd, false, &ref, head.nr);
	snprintf(what, sizeof(what), "%s, cold, with REWIND", fs);
	position_case(what, fd, true, &ref, 0);
	close(fd);
	gd_list_free(&ref);
	gd_list_free(&head);
	gd_remove_dir(dir, BIG);
}

/* "EXT4-fs error" lines in the kernel log */
static int ext4_errors(void)
{
	static char log[1 << 20];
	int n = klogctl(3, log, sizeof(log) - 1), c = 0;

	t_assert(n >= 0, "klogctl");
	log[n] = 0;
	for (char *p = log; (p = strstr(p, "EXT4-fs error")); p++)
		c++;
	return c;
}

/*
 * @fs's directory @dir of @ref's records, after a remount of @disk on
 * @mnt and a stat() of the name @ref has at @look (what the lookup reads
 * is all that is cached), from @pos: GETDENTS (on a fresh ring, 4 KiB
 * buffers) against getdents64(2) under the same conditions.
 */
static void partly_cached(const char *what, const char *disk, const char *mnt,
			  const char *dir, const struct gd_list *ref,
			  size_t look, off_t pos)
{
	struct gd_list want = { 0 }, got = { 0 };
	char path[300];
	struct stat st;
	int errors;

	for (int io = 0; io < 2; io++) {
		struct io_uring ring;
		int fd;

		remount(disk, mnt);
		snprintf(path, sizeof(path), "%s/%s", dir, ref->ent[look].name);
		t_assert(!stat(path, &st), "stat %s", path);
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		t_assert(fd >= 0 && lseek(fd, pos, SEEK_SET) == pos, "lseek");
		errors = ext4_errors();
		if (!io) {
			t_assert(!gd_read_syscall(fd, 4096, &want), "read");
		} else {
			t_assert(!io_uring_queue_init(4, &ring, 0), "ring");
			t_check(!gd_read_ring(&ring, fd, 0, 4096, &got),
				"%s: GETDENTS reads to the end", what);
			io_uring_queue_exit(&ring);
		}
		errors = ext4_errors() - errors;
		t_check(!errors, "%s: no ext4 error logged (%s: %d)", what,
			io ? "GETDENTS" : "getdents64", errors);
		close(fd);
	}
	t_check(gd_same(&want, &got), "%s: the records and d_offs of "
		"getdents64(2), each entry once (%zu and %zu records)", what,
		want.nr, got.nr);
	gd_list_free(&want);
	gd_list_free(&got);
}

static void unlink_entry(const char *dir, const char *name)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	t_assert(!unlink(path), "unlink %s", path);
}

static void partly_cached_cases(const char *fs, const char *disk,
				const char *mnt, bool htree)
{
	struct gd_list ref = { 0 };
	char dir[256], what[128];
	off_t pos = 0;

	snprintf(dir, sizeof(dir), "%s/part", mnt);
	gd_make_dir(dir, 1000);
	reference(dir, &ref);
	if (htree) {
		/* the highest hash: the first leaf is not cached */
		snprintf(what, sizeof(what), "%s, root and last leaf cached",
			 fs);
		partly_cached(what, disk, mnt, dir, &ref, ref.nr - 1, 0);
		/* the lowest (after . and ..): the first is, the next not */
		snprintf(what, sizeof(what), "%s, root and first leaf cached",
			 fs);
		partly_cached(what, disk, mnt, dir, &ref, 2, 0);
	} else {
		size_t last = 0;	/* the last entry of block 7 */

		/* 1 KiB blocks: a lookup reads blocks 0-7 ahead; into the
		 * middle of the record that ends block 7 */
		for (size_t i = 1; i < ref.nr && !last; i++)
			if (ref.ent[i].off == 8 * 1024)
				last = i;
		t_assert(last > 0 && last + 2 < ref.nr,
			 "%s: no record ends at 8 KiB", fs);
		pos = ref.ent[last - 1].off + 4;
		snprintf(what, sizeof(what), "%s, from the middle of a record, "
			 "the next block not cached", fs);
		partly_cached(what, disk, mnt, dir, &ref, 3, pos);
		/*
		 * From the start: a request ends before block 8, which is
		 * not cached. Its last record's d_off is where getdents64(2)
		 * goes on: the first live entry after it, in block 8 past a
		 * deleted one, then in block 9 when block 8 has none (v10
		 * gave the start of block 8).
		 */
		unlink_entry(dir, ref.ent[last + 1].name);
		snprintf(what, sizeof(what), "%s, the next block not cached "
			 "and starting with a deleted entry", fs);
		partly_cached(what, disk, mnt, dir, &ref, 3, 0);
		for (size_t i = last + 2; i < ref.nr &&
		     ref.ent[i - 1].off < 9 * 1024; i++)
			unlink_entry(dir, ref.ent[i].name);
		snprintf(what, sizeof(what), "%s, the next block not cached "
			 "and with no live entry", fs);
		partly_cached(what, disk, mnt, dir, &ref, 3, 0);
	}
	gd_list_free(&ref);
	gd_remove_dir(dir, 1000);
}

static void disk_cases(const char *fs, const char *disk, const char *mnt,
		       bool htree)
{
	t_assert(!mkdir(mnt, 0755) || errno == EEXIST, "mkdir %s", mnt);
	t_assert(!mount(disk, mnt, "ext4", 0, NULL), "mount %s", disk);
	dir_cases(fs, mnt, SMALL);
	dir_cases(fs, mnt, BIG);
	position_cases(fs, disk, mnt);
	partly_cached_cases(fs, disk, mnt, htree);
	t_check_umount(mnt);
}

int main(void)
{
	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	if (access("/dev/vda", F_OK) || access("/dev/vdb", F_OK))
		return t_no_feature("ext4 scratch disks at /dev/vda and /dev/vdb "
				    "(vm/run.sh --disk)");
	t_assert(!mkdir(TMP, 0755) || errno == EEXIST, "mkdir");
	disk_cases("ext4 with dir_index", "/dev/vda", TMP "/htree", true);
	disk_cases("ext4 without dir_index", "/dev/vdb", TMP "/linear", false);
	return t_exit();
}
