// SPDX-License-Identifier: MIT
/*
 * Description: SENDFILE reads every file sendfile(2) reads, the way
 * sendfile(2) reads it (the file's ->splice_read()), and sends the same
 * bytes with the same result, for each way of naming the file and the
 * socket. Where the file's read can be asked not to wait (tmpfs, ext4 in
 * the page cache) the request completes inline, without an io-wq worker;
 * files whose read cannot (procfs, sysfs, /dev/zero, ramfs, an O_DIRECT
 * file on ext4) go to io-wq, and a file sendfile(2) cannot read (a pipe,
 * a directory) fails with sendfile(2)'s error. Each case runs in a child of
 * its own, so that the io-wq workers counted are its own.
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-inputs"
#define EXT4 TMP "/ext4"
#define RAMFS TMP "/ramfs"
#define DISK "/dev/vda"
#define MAX_OUT (1 << 20)

struct input {
	const char *name;
	const char *path;	/* NULL: a pipe */
	int flags;		/* open(2) flags beside O_RDONLY */
	long long off;
	size_t len;
	bool inline_ok;		/* its read can be asked not to wait */
};

/* What the peer of one send got, written by the child that sent. */
struct capture {
	long long res;
	size_t len;
	int workers;
	unsigned char bytes[MAX_OUT];
};

static int open_input(const struct input *in, int p[2])
{
	if (!in->path) {
		t_assert(!pipe(p) && write(p[1], "pipe", 4) == 4, "pipe");
		return p[0];
	}
	return open(in->path, O_RDONLY | in->flags);
}

/* In the child: one send of @in, one way, into *@c. */
static void send_one(const struct input *in, enum sf_way way,
		     struct capture *c)
{
	struct sf_capture peer;
	int p[2] = { -1, -1 }, sv[2], fd;

	fd = open_input(in, p);
	t_assert(fd >= 0, "open %s", in->name);
	sf_pair(AF_UNIX, sv);
	sf_capture_start(&peer, sv[1], c->bytes, MAX_OUT);
	if (way == SF_SYS) {
		c->res = sf_send(way, fd, sv[0], in->off, in->len);
	} else {
		struct io_uring ring;

		/* counted before the ring goes, which takes its workers */
		sf_ring(&ring, way, fd, sv[0]);
		c->res = t_run(&ring, sf_prep(t_sqe, way, fd, sv[0], in->off,
					      in->len));
		c->workers = t_io_wq_workers();
		io_uring_queue_exit(&ring);
	}
	close(sv[0]);
	c->len = sf_capture_join(&peer);
	close(sv[1]);
	close(fd);
	if (p[1] >= 0)
		close(p[1]);
}

static void capture(const struct input *in, enum sf_way way,
		    struct capture *c)
{
	pid_t pid;
	int status;

	memset(c, 0, sizeof(*c));
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		send_one(in, way, c);
		_exit(0);
	}
	t_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		 !WEXITSTATUS(status), "child of %s", in->name);
}

static void compare(const struct input *in, struct capture *sys,
		    struct capture *ring)
{
	capture(in, SF_SYS, sys);
	for (enum sf_way w = SF_RING; w < SF_NR_WAYS; w++) {
		capture(in, w, ring);
		t_check(ring->res == sys->res && ring->len == sys->len &&
			!memcmp(ring->bytes, sys->bytes, sys->len),
			"%s: %s returns %lld and the peer reads %zu bytes, "
			"as from sendfile(2) (%lld, %zu)", in->name,
			sf_way_names[w], ring->res, ring->len, sys->res,
			sys->len);
		if (w == SF_ASYNC || sys->res <= 0)
			continue;
		t_check(in->inline_ok ? !ring->workers : ring->workers > 0,
			"%s: %s %s (%d io-wq workers)", in->name,
			sf_way_names[w], in->inline_ok ? "ran inline" :
			"read it in io-wq", ring->workers);
	}
}

int main(void)
{
	const struct input inputs[] = {
		{ "tmpfs", TMP "/f", 0, 5, 300000, true },
		{ "ext4, cached", EXT4 "/f", 0, 4097, 300000, true },
		{ "ext4, O_DIRECT", EXT4 "/f", O_DIRECT, 0, 65536, false },
		{ "ramfs", RAMFS "/f", 0, 1, 100000, false },
		{ "procfs", "/proc/version", 0, 0, 4096, false },
		{ "procfs, file position", "/proc/version", 0, -1, 4096,
		  false },
		{ "sysfs", "/sys/devices/system/cpu/online", 0, 0, 4096,
		  false },
		{ "/dev/zero", "/dev/zero", 0, 0, 100000, false },
		{ "a pipe", NULL, 0, -1, 4096, false },
		{ "a directory", TMP, O_DIRECTORY, 0, 4096, false },
	};
	struct capture *sys, *ring;
	int fd;

	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	mkdir(TMP, 0755);
	mkdir(EXT4, 0755);
	mkdir(RAMFS, 0755);
	t_assert(!mount(DISK, EXT4, "ext4", 0, NULL) ||
		 !t_nofd_kernel(), "mount the ext4 scratch disk " DISK);
	t_assert(!mount("ramfs", RAMFS, "ramfs", 0, NULL), "mount ramfs");
	t_make_file(TMP "/f", 400000);
	t_make_file(EXT4 "/f", 400000);
	t_make_file(RAMFS "/f", 400000);
	/* read once: relatime updates the atime due since the write */
	fd = open(EXT4 "/f", O_RDONLY);
	t_assert(fd >= 0 && !fsync(fd), "fsync");
	t_assert(read(fd, (char[4096]){ 0 }, 4096) == 4096, "read");
	close(fd);

	sys = mmap(NULL, 2 * sizeof(*sys), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	t_assert(sys != MAP_FAILED, "mmap");
	ring = sys + 1;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
		compare(&inputs[i], sys, ring);
	t_check_umount(EXT4);
	t_check_umount(RAMFS);
	return t_exit();
}
