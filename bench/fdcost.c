// SPDX-License-Identifier: MIT
/*
 * fdcost: what the descriptor work of the regular-fd modes costs, measured
 * on its own: the most a direct descriptor can save (the benchmark's
 * ceiling). Prints, in CPU nanoseconds (under -icount shift=0: executed
 * instructions):
 *
 *   install=NS   an fd installed and removed again: dup(2) + close(2),
 *                less two getppid(2), the cost of two system calls
 *   fget=NS      a request on a regular fd over the same request on a
 *                fixed file: 0-byte READs of a file, DEPTH per
 *                submission, the difference per request (the fget/fput
 *                of the fd, the file's flags looked up each time)
 *   sock=NS      the same for 0-byte SENDs on a connected socket
 *   register=NS  FILES_UPDATE of one fd into a slot and out again, less
 *                two getppid(2) (the extra work per connection or file
 *                of uring-detour and uring+reg)
 *
 *   fdcost COUNT DEPTH
 */
#include <sys/socket.h>
#include <sys/syscall.h>

#include "bench.h"

static double per(unsigned long n, double t0)
{
	return (cpu_self() - t0) * 1e9 / n;
}

static double two_syscalls(unsigned long n)
{
	double t0 = cpu_self();

	for (unsigned long i = 0; i < n; i++) {
		syscall(SYS_getppid);
		syscall(SYS_getppid);
	}
	return per(n, t0);
}

static double dup_close(unsigned long n, int fd)
{
	double t0 = cpu_self();

	for (unsigned long i = 0; i < n; i++)
		close(dup(fd));
	return per(n, t0);
}

/*
 * Per request: @n 0-byte READs (or SENDs if @send) of @fd (a slot if
 * @fixed), @depth at once
 */
static double reads(struct io_uring *ring, unsigned long n, int depth,
		    int fd, int fixed, int send)
{
	static char byte;
	double t0 = cpu_self();

	for (unsigned long i = 0; i < n; i += depth) {
		for (int j = 0; j < depth; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

			if (send)
				io_uring_prep_send(sqe, fd, &byte, 0, 0);
			else
				io_uring_prep_read(sqe, fd, &byte, 0, 0);
			sqe->flags |= fixed ? IOSQE_FIXED_FILE : 0;
		}
		if (io_uring_submit_and_wait(ring, depth) != depth)
			die("submit", -EIO);
		for (int j = 0; j < depth; j++) {
			struct io_uring_cqe *cqe;

			if (io_uring_wait_cqe(ring, &cqe) || cqe->res)
				die("READ", -EIO);
			io_uring_cqe_seen(ring, cqe);
		}
	}
	return per(n, t0);
}

static double update(struct io_uring *ring, unsigned long n, int fd)
{
	int none = -1;
	double t0 = cpu_self();

	for (unsigned long i = 0; i < n; i++)
		if (io_uring_register_files_update(ring, 1, &fd, 1) != 1 ||
		    io_uring_register_files_update(ring, 1, &none, 1) != 1)
			die("FILES_UPDATE", -EINVAL);
	return per(n, t0);
}

static const char usage[] = "usage: fdcost COUNT DEPTH\n";

int main(int argc, char **argv)
{
	struct io_uring ring;
	unsigned long n;
	double sys2;
	int depth, fd, sv[2];

	usage_help(argc, argv, usage);
	if (argc != 3)
		usage_error(usage);
	n = strtoul(argv[1], NULL, 10);
	depth = atoi(argv[2]);
	fd = open("/tmp/fdcost.dat", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0644);
	if (fd < 0 || depth < 1 || io_uring_queue_init(2 * depth, &ring, 0) ||
	    io_uring_register_files_sparse(&ring, 3) ||
	    io_uring_register_files_update(&ring, 0, &fd, 1) != 1 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ||
	    io_uring_register_files_update(&ring, 2, sv, 1) != 1)
		die("setup", -errno);

	/* once each to warm up, then measured */
	two_syscalls(n / 10);
	sys2 = two_syscalls(n);
	dup_close(n / 10, fd);
	printf("install=%.1f ", dup_close(n, fd) - sys2);
	reads(&ring, n / 10, depth, fd, 0, 0);
	reads(&ring, n / 10, depth, 0, 1, 0);
	printf("fget=%.1f ", reads(&ring, n, depth, fd, 0, 0) -
	       reads(&ring, n, depth, 0, 1, 0));
	reads(&ring, n / 10, depth, sv[0], 0, 1);
	reads(&ring, n / 10, depth, 2, 1, 1);
	printf("sock=%.1f ", reads(&ring, n, depth, sv[0], 0, 1) -
	       reads(&ring, n, depth, 2, 1, 1));
	update(&ring, n / 10, fd);
	printf("register=%.1f\n", update(&ring, n, fd) - sys2);
	unlink("/tmp/fdcost.dat");
	return 0;
}
