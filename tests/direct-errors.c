// SPDX-License-Identifier: MIT
/*
 * Description: bad direct installs fail cleanly, with the error 7.3 gives,
 * and leave nothing behind: no regular fd, no occupied slot. Also, a ring's
 * own file (or any io_uring file) can never enter a fixed-file table, and
 * an OPENAT of it through its /proc magic link into a slot fails as
 * open(2) of that link does. The other errors are of the table or its
 * registration, which no syscall has: their errno is written here.
 */
#include "test.h"

#define NR_SLOTS 4
#define PATH "/tmp/direct-errors.dat"

static struct open_how how_cloexec = { .flags = O_RDONLY | O_CLOEXEC };
static struct open_how how_rdonly = { .flags = O_RDONLY };
static int lfd;

static void openat_cloexec(struct io_uring_sqe *sqe)
{
	io_uring_prep_openat_direct(sqe, AT_FDCWD, PATH, O_RDONLY | O_CLOEXEC, 0, 0);
}

static void openat2_cloexec(struct io_uring_sqe *sqe)
{
	io_uring_prep_openat2_direct(sqe, AT_FDCWD, PATH, &how_cloexec, 0);
}

static void accept_cloexec(struct io_uring_sqe *sqe)
{
	io_uring_prep_accept_direct(sqe, lfd, NULL, NULL, SOCK_CLOEXEC, 0);
}

static void socket_cloexec(struct io_uring_sqe *sqe)
{
	io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0);
}

static void openat_past_end(struct io_uring_sqe *sqe)
{
	io_uring_prep_openat_direct(sqe, AT_FDCWD, PATH, O_RDONLY, 0, NR_SLOTS);
}

static void openat2_far_past_end(struct io_uring_sqe *sqe)
{
	io_uring_prep_openat2_direct(sqe, AT_FDCWD, PATH, &how_rdonly, 65534);
}

static void accept_past_end(struct io_uring_sqe *sqe)
{
	io_uring_prep_accept_direct(sqe, lfd, NULL, NULL, 0, NR_SLOTS);
}

static void socket_past_end(struct io_uring_sqe *sqe)
{
	io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM, 0, NR_SLOTS, 0);
}

static void openat_slot0(struct io_uring_sqe *sqe)
{
	io_uring_prep_openat_direct(sqe, AT_FDCWD, PATH, O_RDONLY, 0, 0);
}

static void accept_slot0(struct io_uring_sqe *sqe)
{
	io_uring_prep_accept_direct(sqe, lfd, NULL, NULL, 0, 0);
}

static void socket_slot0(struct io_uring_sqe *sqe)
{
	io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM, 0, 0, 0);
}

static void openat_alloc(struct io_uring_sqe *sqe)
{
	io_uring_prep_openat(sqe, AT_FDCWD, PATH, O_RDONLY, 0);
	sqe->file_index = IORING_FILE_INDEX_ALLOC;
}

static void read_past_end(struct io_uring_sqe *sqe)
{
	static char buf[4];

	io_uring_prep_read(sqe, NR_SLOTS, buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

/*
 * Each error is about the slot (O_CLOEXEC that a slot cannot hold, an index
 * past the table, no table): no syscall has one to compare with.
 */
static const struct error_case {
	const char *claim;
	void (*prep)(struct io_uring_sqe *sqe);
	int no_table;	/* run on a ring without a file table */
	int connect;	/* a connection must be waiting to be accepted */
	int want;
} cases[] = {
	/* a direct descriptor has no fd flags to carry O_CLOEXEC */
	{ "OPENAT into a slot with O_CLOEXEC", openat_cloexec, 0, 0, -EINVAL },
	{ "OPENAT2 into a slot with O_CLOEXEC", openat2_cloexec, 0, 0, -EINVAL },
	{ "ACCEPT into a slot with SOCK_CLOEXEC", accept_cloexec, 0, 0, -EINVAL },
	{ "SOCKET into a slot with SOCK_CLOEXEC", socket_cloexec, 0, 0, -EINVAL },
	/* the slot is checked when the file is installed; the file is put */
	{ "OPENAT into slot 4 of a 4-slot table", openat_past_end, 0, 0, -EINVAL },
	{ "OPENAT2 into slot 65534 of a 4-slot table", openat2_far_past_end, 0, 0, -EINVAL },
	{ "ACCEPT into slot 4 of a 4-slot table", accept_past_end, 0, 1, -EINVAL },
	{ "SOCKET into slot 4 of a 4-slot table", socket_past_end, 0, 0, -EINVAL },
	{ "fixed READ of slot 4 of a 4-slot table", read_past_end, 0, 0, -EBADF },
	/* no table registered at all */
	{ "OPENAT into a slot with no file table", openat_slot0, 1, 0, -ENXIO },
	{ "ACCEPT into a slot with no file table", accept_slot0, 1, 1, -ENXIO },
	{ "SOCKET into a slot with no file table", socket_slot0, 1, 0, -ENXIO },
	/* 7.3 finds no free slot in a missing table: -ENFILE, not -ENXIO */
	{ "OPENAT with ALLOC and no file table", openat_alloc, 1, 0, -ENFILE },
};

static void ring_files_refused(void)
{
	struct io_uring ring, other;
	int fds[1], ret, want;
	char path[64];

	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	t_assert(!io_uring_queue_init(4, &other, 0), "queue_init");
	/* the registration's own refusals: no syscall to compare with */
	fds[0] = ring.ring_fd;
	ret = io_uring_register_files(&ring, fds, 1);
	t_check_res(ret, -EBADF, "registering the ring's own fd fails with -EBADF");
	fds[0] = other.ring_fd;
	ret = io_uring_register_files(&ring, fds, 1);
	t_check_res(ret, -EBADF, "registering another ring's fd fails with -EBADF");

	t_assert(!io_uring_register_files_sparse(&ring, 2), "register sparse");
	fds[0] = ring.ring_fd;
	ret = io_uring_register_files_update(&ring, 0, fds, 1);
	t_check_res(ret, -EBADF, "updating a slot to the ring's own fd fails with -EBADF");
	fds[0] = other.ring_fd;
	ret = io_uring_register_files_update(&ring, 1, fds, 1);
	t_check_res(ret, -EBADF, "updating a slot to another ring's fd fails with -EBADF");

	/* Reopening the ring through its magic link fails as open(2) does. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", ring.ring_fd);
	want = t_sys(open(path, O_RDWR));
	t_check_res(want, -ENXIO, "open(2) of %s fails with -ENXIO", path);
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, path,
						       O_RDWR, 0, 0));
	t_check_res(ret, want, "OPENAT of it into a slot fails the same");
	t_check(t_slot_empty(&ring, 0), "and slot 0 stays empty");
	io_uring_queue_exit(&other);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	struct sockaddr_in addr;
	struct io_uring with, without;
	int fds, clients[16], nr_clients = 0;

	t_make_file(PATH, 16);
	lfd = t_listener(&addr);
	t_assert(!io_uring_queue_init(4, &with, 0), "queue_init");
	t_assert(!io_uring_queue_init(4, &without, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&with, NR_SLOTS), "register");

	fds = t_count_fds();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct error_case *c = &cases[i];
		struct io_uring *ring = c->no_table ? &without : &with;

		if (c->connect)
			clients[nr_clients++] = t_connect(&addr);
		fds += c->connect;
		t_check_res(t_run(ring, c->prep(t_sqe)), c->want, "%s fails with %d",
			    c->claim, c->want);
		t_check(t_count_fds() == fds, "%s leaves no fd behind", c->claim);
	}
	for (int slot = 0; slot < NR_SLOTS; slot++)
		t_check(t_slot_empty(&with, slot),
			"after all failures slot %d is still empty", slot);

	ring_files_refused();
	for (int i = 0; i < nr_clients; i++)
		close(clients[i]);
	close(lfd);
	io_uring_queue_exit(&with);
	io_uring_queue_exit(&without);
	unlink(PATH);
	return t_exit();
}
