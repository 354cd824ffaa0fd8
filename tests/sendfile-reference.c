// SPDX-License-Identifier: MIT
/*
 * Description: the reference the SENDFILE tests compare with is whole.
 * sf_send(SF_SYS) is sendfile(2) to a socket whose reader starts late, so
 * that it waits for room, right after a ring of the same process ended:
 * each time it must send the whole file. Closing a ring sends the thread
 * that used it task work with TWA_SIGNAL (io_ring_exit_work()), as an
 * io-wq worker does when it frees a request; a sendfile(2) waiting in that
 * thread is then cut short, as by a signal, and returns what it sent so
 * far (mainline behaviour: 3 of 5 times in the guest). sendfile-sockets
 * failed so in make test (kTLS, its reference 65535 of 100000 bytes) until
 * the fixture ran sendfile(2) in a thread that never used a ring.
 */
#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-reference"
#define FILE_PATH TMP "/f"
#define SIZE (1024 * 1024)
#define ROUNDS 5

/* A ring used once and closed, then sendfile(2) of the file to a pair. */
static long long after_ring(void)
{
	int in = open(FILE_PATH, O_RDONLY), sv[2];
	struct sf_peer peer;
	struct io_uring ring;
	long long ret;

	t_assert(in >= 0, "open");
	sf_pair(AF_INET, sv);
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_check_res(t_run(&ring, io_uring_prep_nop(t_sqe)), 0, "NOP");
	io_uring_queue_exit(&ring);
	sf_peer_start(&peer, sv[1], 0, 300);
	ret = sf_send(SF_SYS, in, sv[0], 0, SIZE);
	shutdown(sv[0], SHUT_WR);
	sf_peer_join(&peer);
	t_check(peer.got == ret && peer.bad_at < 0,
		"the peer reads the %lld bytes sent, as they are in the file "
		"(%lld, first wrong at %lld)", ret, peer.got, peer.bad_at);
	close(sv[0]);
	close(in);
	return ret;
}

int main(void)
{
	mkdir(TMP, 0755);
	t_make_file(FILE_PATH, SIZE);

	for (int i = 0; i < ROUNDS; i++)
		t_check_res(after_ring(), SIZE, "round %d: sendfile(2) right "
			    "after a ring's end sends the whole file", i);
	return t_exit();
}
