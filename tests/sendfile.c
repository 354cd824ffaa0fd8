// SPDX-License-Identifier: MIT
/*
 * Description: SENDFILE sends what sendfile(2) sends. Each case runs every
 * way (sendfile(2); SENDFILE with regular fds, the file in a slot, the
 * socket in a slot, both, and IOSQE_ASYNC) on a fresh socket pair with a
 * reader checking every byte, and compares the result, the bytes the peer
 * got and, with offset -1, where the file position ends, to sendfile(2)'s:
 * files of 0, 1, 4095, 4096, 1 MiB + 1 and 64 MiB, offsets inside, at and
 * past the end, offset -1 from a moved position, len 0, a len past the end
 * (a short count), over TCP and AF_UNIX stream sockets, from tmpfs. A
 * short SENDFILE breaks its link, as a short READ does, and an empty one
 * leaves what an earlier MSG_MORE send corked as sendfile(2) leaves it.
 */
#include <limits.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile"

struct sf_case {
	const char *name;
	size_t size;		/* of the file */
	long long off;		/* -1: from the position, set to @pos first */
	long long pos;
	size_t len;
	int family;
};

struct sf_result {
	long long res, got, bad_at, pos_after;
};

/*
 * sendfile(2) in a child, which has no ring: task work that a ring's exit
 * leaves for this task would make sendfile(2)'s waits for room return
 * early, and SENDFILE would be compared with a count cut short. A child
 * that did not exit 0 gave no result, not "sent 0".
 */
static long long sys_send(int in, int sock, long long off, size_t len)
{
	long long *res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long long ret;
	int status;
	pid_t pid;

	t_assert(res != MAP_FAILED, "mmap");
	*res = LLONG_MIN;
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		*res = sf_send(SF_SYS, in, sock, off, len);
		_exit(0);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_assert(WIFEXITED(status) && !WEXITSTATUS(status) &&
		 *res != LLONG_MIN, "the sendfile(2) child: status %#x",
		 status);
	ret = *res;
	munmap(res, sizeof(*res));
	return ret;
}

static struct sf_result run_way(const struct sf_case *c, enum sf_way way,
				const char *path)
{
	struct sf_result r;
	struct sf_peer peer;
	int in = open(path, O_RDONLY), sv[2];

	t_assert(in >= 0, "open %s", path);
	if (c->off == -1)
		t_assert(lseek(in, c->pos, SEEK_SET) == c->pos, "lseek");
	sf_pair(c->family, sv);
	sf_peer_start(&peer, sv[1], c->off == -1 ? c->pos : c->off, 0);
	if (way == SF_SYS)
		r.res = sys_send(in, sv[0], c->off, c->len);
	else
		r.res = sf_send(way, in, sv[0], c->off, c->len);
	close(sv[0]);
	sf_peer_join(&peer);
	r.got = peer.got;
	r.bad_at = peer.bad_at;
	r.pos_after = lseek(in, 0, SEEK_CUR);
	close(in);
	return r;
}

static void run_case(const struct sf_case *c)
{
	char path[64];
	struct sf_result sys, r;

	snprintf(path, sizeof(path), TMP "/f%zu", c->size);
	if (access(path, F_OK))
		t_make_file(path, c->size);
	sys = run_way(c, SF_SYS, path);
	t_check(sys.got == (sys.res > 0 ? sys.res : 0) && sys.bad_at < 0,
		"%s: sendfile(2) returns %lld, the peer reads as much, right",
		c->name, sys.res);
	for (enum sf_way w = SF_RING; w < SF_NR_WAYS; w++) {
		r = run_way(c, w, path);
		t_check(r.res == sys.res && r.got == sys.got && r.bad_at < 0,
			"%s: %s returns %lld as sendfile(2), the peer reads "
			"%lld bytes as it, the file's (first wrong at %lld)",
			c->name, sf_way_names[w], r.res, r.got, r.bad_at);
		t_check(r.pos_after == sys.pos_after,
			"%s: %s leaves the file position at %lld as "
			"sendfile(2) does (%lld)", c->name, sf_way_names[w],
			r.pos_after, sys.pos_after);
	}
}

/*
 * Bytes a send left corked (MSG_MORE), then a way sends an empty file:
 * how many of them are still unsent in the socket (SIOCOUTQNSD) after.
 * sendfile(2) pushes them only if it sent something (->splice_eof()); the
 * first SENDFILE pushed them on an empty file too.
 */
static int corked_left(enum sf_way way)
{
	int in, sv[2], unsent = -1;

	t_make_file(TMP "/empty", 0);
	in = open(TMP "/empty", O_RDONLY);
	sf_pair(AF_INET, sv);
	t_assert(in >= 0 && send(sv[0], "hello", 5, MSG_MORE) == 5, "cork");
	t_check_res(sf_send(way, in, sv[0], 0, 4096), 0,
		    "%s of an empty file sends nothing", sf_way_names[way]);
	t_assert(!ioctl(sv[0], SIOCOUTQNSD, &unsent), "SIOCOUTQNSD");
	close(sv[0]);
	close(sv[1]);
	close(in);
	return unsent;
}

/* The NOP linked after a request of @len bytes of a 4095-byte file. */
static int linked_nop(bool sendfile, unsigned int len)
{
	int in = open(TMP "/f4095", O_RDONLY), sv[2], nop;
	static char buf[8192];
	struct io_uring_sqe *sqe;
	struct io_uring ring;

	t_assert(in >= 0, "open");
	t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	sqe = io_uring_get_sqe(&ring);
	if (sendfile)
		io_uring_prep_sendfile(sqe, sv[0], in, 0, len, 0);
	else
		io_uring_prep_read(sqe, in, buf, len, 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_sqe_set_data64(sqe, 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, 1);
	t_assert(io_uring_submit(&ring) == 2, "submit");
	nop = sf_reap(&ring, 2, 1);
	io_uring_queue_exit(&ring);
	close(sv[0]);
	close(sv[1]);
	close(in);
	return nop;
}

/* A short SENDFILE breaks its link as a short READ does; a whole one not. */
static void links(void)
{
	t_check_res(linked_nop(true, 8192), linked_nop(false, 8192),
		    "a short SENDFILE breaks its link as a short READ does");
	t_check_res(linked_nop(true, 4095), linked_nop(false, 4095),
		    "a whole SENDFILE keeps its link as a whole READ does");
}

int main(void)
{
	const size_t mib = 1 << 20;
	const struct sf_case cases[] = {
		{ "empty file", 0, 0, 0, 4096, AF_INET },
		{ "1 byte", 1, 0, 0, 1, AF_INET },
		{ "4095 bytes", 4095, 0, 0, 4095, AF_INET },
		{ "4096 bytes", 4096, 0, 0, 4096, AF_INET },
		{ "1 MiB + 1", mib + 1, 0, 0, mib + 1, AF_INET },
		{ "1 MiB + 1, unix", mib + 1, 0, 0, mib + 1, AF_UNIX },
		{ "64 MiB", 64 * mib, 0, 0, 64 * mib, AF_INET },
		{ "inside", mib + 1, 4097, 0, 300000, AF_INET },
		{ "unaligned, unix", mib + 1, 5, 0, 70001, AF_UNIX },
		{ "len past the end", 4095, 100, 0, 1 << 20, AF_INET },
		{ "at the end", 4096, 4096, 0, 10, AF_INET },
		{ "past the end", 4096, 1 << 30, 0, 10, AF_INET },
		{ "len 0", 4096, 0, 0, 0, AF_INET },
		{ "offset -1", mib + 1, -1, 123, 200000, AF_INET },
		{ "offset -1, len past the end", 4096, -1, 4000, 1000,
		  AF_UNIX },
		{ "offset -1 at the end", 4096, -1, 4096, 10, AF_INET },
	};

	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	mkdir(TMP, 0755);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	links();
	t_check_res(corked_left(SF_RING), corked_left(SF_SYS),
		    "an empty SENDFILE leaves corked bytes unsent as "
		    "sendfile(2) does");
	return t_exit();
}
