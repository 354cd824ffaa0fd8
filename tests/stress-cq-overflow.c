// SPDX-License-Identifier: MIT
/*
 * Description: direct descriptors through a CQ of 2 entries. 48 requests
 * that install files into IORING_FILE_INDEX_ALLOC slots (OPENAT, SOCKET,
 * PIPE, 16 each) are submitted one at a time without reaping, so all but
 * two CQEs go to the overflow list; then a multishot ACCEPT meets 16
 * connections. Reaped afterwards, every request completes exactly once,
 * every install got a slot of its own and the slot holds what the request
 * made (the file's bytes, a socket, a working pipe), and every connection
 * got one slot. Plain and DEFER_TASKRUN rings.
 */
#include "test.h"

#define EACH	16
#define NR	(3 * EACH)
#define SLOTS	128
#define FILE	"/tmp/stress-cq-overflow"

enum { OPEN, SOCK, PIPE };

struct req {
	int kind, res, cqes;
	int fds[2];
};

static struct req reqs[NR];

static void submit_one(struct io_uring *ring, int i)
{
	struct io_uring_sqe *sqe;
	int ret;

	/* with overflowed CQEs the kernel may refuse new work: retry */
	while (!(sqe = io_uring_get_sqe(ring)))
		io_uring_submit(ring);
	reqs[i].kind = i % 3;
	switch (reqs[i].kind) {
	case OPEN:	/* ALLOC set directly, as with any liburing */
		io_uring_prep_openat(sqe, AT_FDCWD, FILE, O_RDONLY, 0);
		sqe->file_index = IORING_FILE_INDEX_ALLOC;
		break;
	case SOCK:
		io_uring_prep_socket_direct_alloc(sqe, AF_INET, SOCK_STREAM,
						  0, 0);
		break;
	default:
		io_uring_prep_pipe_direct(sqe, reqs[i].fds, 0,
					  IORING_FILE_INDEX_ALLOC);
		break;
	}
	sqe->user_data = i;
	do
		ret = io_uring_submit(ring);
	while (ret == -EBUSY || ret == -EAGAIN);
	t_assert(ret == 1, "submit: %d", ret);
}

/* Reap until @want CQEs came or nothing more comes for a second. */
static int reap(struct io_uring *ring, int want, int *slots_seen,
		int *accepts, bool *armed)
{
	struct __kernel_timespec ts = { .tv_sec = 1 };
	struct io_uring_cqe *cqe;
	int n = 0;

	while (n < want && !io_uring_wait_cqe_timeout(ring, &cqe, &ts)) {
		unsigned long long ud = cqe->user_data;

		if (ud < NR) {
			reqs[ud].cqes++;
			reqs[ud].res = cqe->res;
		} else {
			if (cqe->res >= 0 && cqe->res < SLOTS) {
				slots_seen[cqe->res]++;
				(*accepts)++;
			} else {
				printf("    accept: %d\n", cqe->res);
			}
			if (!(cqe->flags & IORING_CQE_F_MORE))
				*armed = false;
		}
		n++;
		io_uring_cqe_seen(ring, cqe);
		if (ud >= NR && !*armed)
			break;	/* the multishot ended: re-arm first */
	}
	return n;
}

static void run(unsigned int setup)
{
	struct io_uring_params p = { .flags = setup | IORING_SETUP_CQSIZE,
				     .cq_entries = 2 };
	int seen[SLOTS] = { 0 }, dups = 0, bad = 0, once = 0, accepts = 0;
	int clients[EACH], lfd, n;
	bool armed = false;
	struct sockaddr_in addr;
	struct io_uring ring;
	struct io_uring_sqe *sqe;

	printf("# ring flags %#x\n", setup);
	memset(reqs, 0, sizeof(reqs));
	t_assert(!io_uring_queue_init_params(1, &ring, &p), "queue_init");
	t_check_res(p.cq_entries, 2, "the CQ has 2 entries");
	t_assert(!io_uring_register_files_sparse(&ring, SLOTS), "register");

	for (int i = 0; i < NR; i++)
		submit_one(&ring, i);
	t_check(IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_CQ_OVERFLOW,
		"the CQ overflowed");
	n = reap(&ring, NR, seen, &accepts, &armed);
	t_check_res(n, NR, "%d CQEs reaped", NR);
	for (int i = 0; i < NR; i++) {
		struct req *r = &reqs[i];
		int slots[2] = { r->res, -1 };

		once += r->cqes == 1;
		if (r->kind == PIPE) {
			slots[0] = r->res ? -1 : r->fds[0];
			slots[1] = r->res ? -1 : r->fds[1];
		}
		for (int e = 0; e < 2; e++) {
			if (e && r->kind != PIPE)
				break;
			if (slots[e] < 0 || slots[e] >= SLOTS)
				bad++;
			else
				dups += seen[slots[e]]++ > 0;
		}
	}
	t_check_res(once, NR, "every request completed exactly once");

	t_check(!bad && !dups, "every install got a slot of its own (%d "
		"failed, %d twice)", bad, dups);

	/* what each slot holds */
	bad = 0;
	for (int i = 0; i < NR; i++) {
		struct req *r = &reqs[i];
		char buf[8] = { 0 };

		if (r->kind == OPEN)
			bad += t_read_slot(&ring, r->res, buf, 8) != 8 ||
			       memcmp(buf, "abcdefgh", 8);
		else if (r->kind == SOCK)
			bad += t_run(&ring, {
				io_uring_prep_recv(t_sqe, r->res, buf, 8,
						   MSG_DONTWAIT);
				t_sqe->flags |= IOSQE_FIXED_FILE;
			}) != -ENOTCONN;
		else
			bad += t_run(&ring, {
				io_uring_prep_write(t_sqe, r->fds[1], "pipe",
						    4, 0);
				t_sqe->flags |= IOSQE_FIXED_FILE;
			}) != 4 || t_read_slot(&ring, r->fds[0], buf, 8) != 4;
	}
	t_check(!bad, "each slot holds what its request made: the file, an "
		"unconnected socket, a pipe (%d did not)", bad);

	/* a multishot ACCEPT into the 2-entry CQ */
	memset(seen, 0, sizeof(seen));
	lfd = t_listener(&addr);
	for (int i = 0; i < EACH; i++)
		clients[i] = t_connect(&addr);
	accepts = 0;
	while (accepts < EACH) {
		if (!armed) {	/* an overflow ends the multishot: re-arm */
			sqe = io_uring_get_sqe(&ring);
			t_assert(sqe, "no sqe");
			io_uring_prep_multishot_accept(sqe, lfd, NULL, NULL, 0);
			sqe->file_index = IORING_FILE_INDEX_ALLOC;
			sqe->user_data = NR;
			io_uring_submit(&ring);
			armed = true;
		}
		if (!reap(&ring, EACH - accepts, seen, &accepts, &armed))
			break;
	}
	dups = 0;
	for (int s = 0; s < SLOTS; s++)
		dups += seen[s] > 1;
	t_check(accepts == EACH && !dups, "%d connections, %d slots, %d twice",
		EACH, accepts, dups);

	for (int i = 0; i < EACH; i++)
		close(clients[i]);
	close(lfd);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	int fds_before = t_count_fds();

	t_make_file(FILE, 8);
	run(0);
	run(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
	t_check_res(t_count_fds(), fds_before, "no descriptor left behind");
	return t_exit();
}
