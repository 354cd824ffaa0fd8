// SPDX-License-Identifier: MIT
/*
 * Description: 2,560 connections (40 waves) through a multishot ACCEPT into
 * IORING_FILE_INDEX_ALLOC slots of a table smaller than the load. They
 * come in waves of 64 against 31 free slots: the accepts that find the
 * table full complete with -ENFILE (which ends the multishot; it is
 * re-armed) and their connection is closed, the others get a slot each.
 * The server answers every slot with one byte and closes it when the wave
 * is over. Every client must see either its byte and then EOF (accepted)
 * or EOF alone (refused, -ENFILE): no connection lost, hung or answered
 * twice; the counts must match the CQEs. Afterwards the table is whole
 * again: a last wave of 31 is all accepted, every slot ends empty, and the
 * process holds the descriptors it held at the start.
 */
#include <sys/time.h>

#include "test.h"

#define TOTAL	2560
#define WAVE	64
#define SLOTS	32	/* slot 0 is kept out of the allocation range */
#define FREE	(SLOTS - 1)

struct server {
	struct io_uring ring;
	int lfd;
	bool armed;
	unsigned long accepted, refused, other, rearms;
	int slots[FREE], nr_slots;
};

static void arm(struct server *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);

	t_assert(sqe, "no sqe");
	io_uring_prep_multishot_accept(sqe, s->lfd, NULL, NULL, 0);
	sqe->file_index = IORING_FILE_INDEX_ALLOC;
	sqe->user_data = 1;
	t_assert(io_uring_submit(&s->ring) == 1, "submit");
	s->armed = true;
}

/* Reap accept CQEs until @want connections of this wave are accounted for. */
static bool reap_wave(struct server *s, int want)
{
	int seen = 0;

	while (seen < want) {
		struct __kernel_timespec ts = { .tv_sec = 5 };
		struct io_uring_cqe *cqe;

		if (!s->armed) {
			arm(s);
			s->rearms++;
		}
		if (io_uring_wait_cqe_timeout(&s->ring, &cqe, &ts))
			return false;
		if (cqe->res >= 1 && cqe->res < SLOTS &&
		    s->nr_slots < FREE) {
			s->slots[s->nr_slots++] = cqe->res;
			s->accepted++;
		} else if (cqe->res == -ENFILE) {
			s->refused++;
		} else {
			printf("    unexpected accept result %d\n", cqe->res);
			s->other++;
		}
		if (!(cqe->flags & IORING_CQE_F_MORE))
			s->armed = false;
		seen++;
		io_uring_cqe_seen(&s->ring, cqe);
	}
	return true;
}

/* One byte on every slot of the wave, then CLOSE it: linked pairs. */
static void answer_and_close(struct server *s)
{
	int bad = 0;

	for (int i = 0; i < s->nr_slots; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);

		if (!sqe) {
			io_uring_submit(&s->ring);
			sqe = io_uring_get_sqe(&s->ring);
		}
		io_uring_prep_send(sqe, s->slots[i], "x", 1, 0);
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
		sqe->user_data = 2;
		sqe = io_uring_get_sqe(&s->ring);
		if (!sqe) {
			io_uring_submit(&s->ring);
			sqe = io_uring_get_sqe(&s->ring);
		}
		io_uring_prep_close_direct(sqe, s->slots[i]);
		sqe->user_data = 3;
	}
	io_uring_submit(&s->ring);
	for (int n = 0; n < 2 * s->nr_slots; n++) {
		struct io_uring_cqe *cqe;

		t_assert(!io_uring_wait_cqe(&s->ring, &cqe), "wait_cqe");
		if (cqe->user_data == 1) {	/* an accept: none is due */
			printf("    an accept completed between waves: %d\n",
			       cqe->res);
			s->other++;
			n--;
		} else if (cqe->res != (cqe->user_data == 2 ? 1 : 0)) {
			bad++;
		}
		io_uring_cqe_seen(&s->ring, cqe);
	}
	t_assert(!bad, "%d SENDs or CLOSEs of accepted slots failed", bad);
	s->nr_slots = 0;
}

/* What each client saw: its byte then EOF, EOF alone, or something else. */
static void read_clients(int *c, int n, unsigned long *served,
			 unsigned long *closed, unsigned long *lost)
{
	for (int i = 0; i < n; i++) {
		char buf[4];
		ssize_t r = read(c[i], buf, sizeof(buf));

		if (r == 1 && buf[0] == 'x' && read(c[i], buf, 1) == 0)
			(*served)++;
		else if (r == 0 || (r < 0 && errno == ECONNRESET))
			(*closed)++;
		else
			(*lost)++;
		close(c[i]);
	}
}

static int wave(struct server *s, const struct sockaddr_in *addr, int n,
		unsigned long *served, unsigned long *closed,
		unsigned long *lost)
{
	struct timeval tv = { .tv_sec = 5 };
	int c[WAVE];

	for (int i = 0; i < n; i++) {
		c[i] = t_connect(addr);
		setsockopt(c[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (!reap_wave(s, n)) {
		printf("    a wave's accepts did not all complete\n");
		return -1;
	}
	answer_and_close(s);
	read_clients(c, n, served, closed, lost);
	return 0;
}

int main(void)
{
	struct server s = { 0 };
	unsigned long served = 0, closed = 0, lost = 0, before;
	struct sockaddr_in addr;
	int fds_before, i;

	fds_before = t_count_fds();
	t_assert(!io_uring_queue_init(64, &s.ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&s.ring, SLOTS), "register");
	t_assert(!io_uring_register_file_alloc_range(&s.ring, 1, FREE),
		 "alloc range");
	s.lfd = t_listener(&addr);
	arm(&s);

	for (i = 0; i < TOTAL; i += WAVE)
		if (wave(&s, &addr, TOTAL - i < WAVE ? TOTAL - i : WAVE,
			 &served, &closed, &lost))
			break;
	printf("# %lu connections: %lu accepted, %lu refused with -ENFILE, "
	       "%lu other; %lu re-arms\n", served + closed + lost, s.accepted,
	       s.refused, s.other, s.rearms);
	t_check(i >= TOTAL, "every wave's %d accepts completed", WAVE);
	t_check(!s.other, "every accept gave a slot or -ENFILE (%lu other)",
		s.other);
	t_check(s.refused > 0, "the full table refused accepts with -ENFILE "
		"(%lu)", s.refused);
	t_check(served == s.accepted, "every accepted connection got its byte "
		"(%lu clients did, %lu slots)", served, s.accepted);
	t_check(closed == s.refused, "every refused connection was closed "
		"(%lu clients saw EOF alone, %lu -ENFILE)", closed, s.refused);
	t_check(!lost, "no client hung or read anything else (%lu)", lost);

	/* the table recovers: a wave that fits is accepted whole */
	before = s.accepted;
	served = closed = lost = 0;
	t_assert(!wave(&s, &addr, FREE, &served, &closed, &lost), "last wave");
	t_check(s.accepted - before == FREE && served == FREE,
		"afterwards, %d connections get %d slots (%lu)", FREE, FREE,
		s.accepted - before);
	for (int slot = 0; slot < SLOTS; slot++)
		if (t_slot_empty(&s.ring, slot) != 1)
			t_check(0, "slot %d is empty at the end", slot);

	close(s.lfd);
	io_uring_queue_exit(&s.ring);
	t_check_res(t_count_fds(), fds_before, "no descriptor left behind");
	return t_exit();
}
