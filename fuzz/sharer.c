// SPDX-License-Identifier: MIT
/*
 * sharer.c: the fuzzer's second thread (struct sharer_state in fuzz.h).
 */
#include "fuzz.h"

struct sharer_state sharer;

/*
 * The sharer thread: batches of READ, WRITE, RECV, STATX, GETDENTS,
 * FILES_UPDATE and CLOSE on its ring's slots, which hold the shared files,
 * while the main thread's rounds use them too. Every SQE must complete
 * within a second, or, cancelled then (a READ of the socket waits for
 * data), a second later.
 */
static void *sharer_thread(void *arg)
{
	static char buf[4096];
	static struct statx stx;
	uint64_t st = sharer.seed;
	sigset_t set;

	(void)arg;
	/* SIGALRM interrupts the main thread's unregistration, not ours */
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	while (!sharer.stop) {
		unsigned int n = 1 + rand_below(&st, 8), done = 0;
		bool cancelled = false;
		unsigned int ops[8];
		int slots[8];
		struct __kernel_timespec ts = { .tv_sec = 1 };
		struct io_uring_cqe *cqe;

		for (unsigned int i = 0; i < n; i++) {
			struct io_uring_sqe *sqe;
			int slot = rand_below(&st, 4);	/* 3: none */

			sqe = io_uring_get_sqe(&sharer.ring);
			switch (rand_below(&st, 7)) {
			case 0:
				io_uring_prep_read(sqe, slot, buf, 64, 0);
				break;
			case 1:
				io_uring_prep_write(sqe, slot, "shared", 6, 0);
				break;
			case 2:
				io_uring_prep_recv(sqe, slot, buf, 64,
						   MSG_DONTWAIT);
				break;
			case 3:
				io_uring_prep_statx(sqe, slot, "",
						    AT_EMPTY_PATH,
						    STATX_BASIC_STATS, &stx);
				break;
			case 4:
				io_uring_prep_getdents(sqe, slot, buf,
						       sizeof(buf),
						       IORING_GETDENTS_REWIND);
				break;
			case 5:
				io_uring_prep_files_update(sqe,
					&sharer.fds[rand_below(&st, 3)], 1,
					slot);
				break;
			default:
				io_uring_prep_close_direct(sqe, slot);
				break;
			}
			if (sqe->opcode != IORING_OP_FILES_UPDATE &&
			    sqe->opcode != IORING_OP_CLOSE)
				sqe->flags |= IOSQE_FIXED_FILE;
			if (stock && (sqe->opcode == IORING_OP_GETDENTS ||
				      sqe->opcode == IORING_OP_STATX))
				io_uring_prep_nop(sqe);
			sqe->user_data = i;
			ops[i] = sqe->opcode;
			slots[i] = slot;
		}
		/* data for RECV; the buffer may be full (-EAGAIN): fine */
		(void)!write(sharer.peer, "data", 4);
		/* submission stops after an SQE that fails at once */
		for (unsigned int sent = 0; sent < n;) {
			int ret = io_uring_submit(&sharer.ring);

			if (ret <= 0) {
				n = sent;
				break;
			}
			sent += ret;
		}
		sharer.sqes += n;
		for (unsigned int i = 0; i < n; i++) {
			cqe = NULL;
			if (io_uring_wait_cqe_timeout(&sharer.ring, &cqe,
						      &ts) &&
			    !cancelled) {
				/* a READ of a socket without data waits */
				struct io_uring_sync_cancel_reg reg = {
					.flags = IORING_ASYNC_CANCEL_ANY,
					.timeout = { .tv_sec = 1 },
				};

				io_uring_register_sync_cancel(&sharer.ring,
							      &reg);
				cancelled = true;
				i--;
				continue;
			}
			if (!cqe) {
				printf("fuzz: sharer: an SQE did not complete "
				       "after its cancellation (opcodes, "
				       "slots:");
				for (unsigned int k = 0; k < n; k++)
					printf(" %u/%d%s", ops[k], slots[k],
					       done & (1U << k) ? "" : "!");
				printf(")\n");
				sharer.errors++;
				return NULL;
			}
			if (cqe->user_data < 32)
				done |= 1U << cqe->user_data;
			io_uring_cqe_seen(&sharer.ring, cqe);
			sharer.cqes++;
		}
	}
	return NULL;
}

void sharer_start(uint64_t seed)
{
	int pair[2];

	sharer.fds[1] = open(box.shared, O_RDONLY | O_DIRECTORY);
	sharer.fds[0] = openat(sharer.fds[1], "a", O_RDWR);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, pair))
		pair[0] = pair[1] = -1;
	sharer.fds[2] = pair[0];
	sharer.peer = pair[1];
	sharer.seed = seed * 0x9E3779B97F4A7C15ULL | 1;
	sharer.ring_up = !io_uring_queue_init(16, &sharer.ring, 0);
	if (!sharer.ring_up ||
	    io_uring_register_files(&sharer.ring, sharer.fds, 3) ||
	    pthread_create(&sharer.thread, NULL, sharer_thread, NULL)) {
		printf("fuzz: the sharer thread could not start\n");
		sharer.errors++;
		sharer.stop = true;
	}
}

void sharer_stop(void)
{
	if (!sharer.stop) {
		sharer.stop = true;
		pthread_join(sharer.thread, NULL);
	}
	if (sharer.ring_up)
		io_uring_queue_exit(&sharer.ring);
	for (int i = 0; i < 3; i++)
		close(sharer.fds[i]);
	close(sharer.peer);
	printf("fuzz: sharer thread: %lu SQEs, %lu CQEs, %lu errors\n",
	       sharer.sqes, sharer.cqes, sharer.errors);
}
