// SPDX-License-Identifier: MIT
/*
 * Description: ACCEPT with sqe->file_index = N installs the connection into
 * fixed slot N-1 (the seed's patch 4/4): cqe->res is 0, no entry appears in
 * /proc/self/fd, and SEND/RECV with IOSQE_FIXED_FILE on the slot talk to the
 * peer. Run inline and forced through io-wq.
 */
#include "test.h"

static void check_accept(struct io_uring *ring, int lfd,
			 const struct sockaddr_in *addr, int slot, int sqe_flags)
{
	const char *mode = sqe_flags & IOSQE_ASYNC ? " (io-wq)" : "";
	char buf[32] = { 0 };
	int client, fds, ret;

	client = t_connect(addr);
	fds = t_count_fds();
	ret = t_run(ring, {
		io_uring_prep_accept_direct(t_sqe, lfd, NULL, NULL, 0, slot);
		t_sqe->flags |= sqe_flags;
	});
	t_check_res(ret, 0, "ACCEPT%s with file_index %d returns 0", mode,
		    slot + 1);
	t_check(t_count_fds() == fds, "ACCEPT%s adds nothing to /proc/self/fd",
		mode);

	ret = t_run(ring, {
		io_uring_prep_send(t_sqe, slot, "hello client", 12, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, 12, "SEND on direct socket %d returns 12", slot);
	ret = recv(client, buf, sizeof(buf), 0);
	t_check(ret == 12 && !memcmp(buf, "hello client", 12),
		"peer receives what was sent on direct socket %d", slot);

	t_assert(send(client, "hello server", 12, 0) == 12, "client send");
	memset(buf, 0, sizeof(buf));
	ret = t_run(ring, {
		io_uring_prep_recv(t_sqe, slot, buf, sizeof(buf), 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, 12, "RECV on direct socket %d returns 12", slot);
	t_check(!memcmp(buf, "hello server", 12),
		"RECV on direct socket %d returns the peer's bytes", slot);
	close(client);
}

int main(void)
{
	struct sockaddr_in addr;
	struct io_uring ring;
	int lfd, ret;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	ret = io_uring_register_files_sparse(&ring, 4);
	t_assert(!ret, "register_files_sparse: %d", ret);
	lfd = t_listener(&addr);

	check_accept(&ring, lfd, &addr, 0, 0);
	check_accept(&ring, lfd, &addr, 3, IOSQE_ASYNC);

	close(lfd);
	io_uring_queue_exit(&ring);
	return t_exit();
}
