// SPDX-License-Identifier: MIT
/*
 * Description: a SENDFILE that cannot be done fails cleanly, with
 * sendfile(2)'s error, side by side with it: a bad input, a write-only,
 * directory or O_PATH input (fd and slot), an empty input slot (as a
 * closed fd), a negative offset, an O_APPEND socket, a read-only output.
 * A slot past the table fails with -EBADF; a SQE field the op does not
 * read, or a splice flag other than SPLICE_F_FD_IN_FIXED, with -EINVAL:
 * sendfile(2) has nothing of the kind, so these are written here. A peer
 * gone is -EPIPE, as sendfile(2) gives with SIGPIPE ignored, but without
 * SIGPIPE, where sendfile(2) dies of it. (The inputs and sockets SENDFILE
 * takes, as sendfile(2) takes them, and the outputs it refuses are in
 * sendfile-inputs and sendfile-sockets.)
 */
#include <signal.h>
#include <sys/wait.h>

#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-errors"
#define FILE_PATH TMP "/f"

/* SENDFILE of 4096 bytes of @in to @out, both regular fds. */
static int ring_send(int in, int out, long long off)
{
	return sf_send(SF_RING, in, out, off, 4096);
}

static int sys_send(int in, int out, long long off)
{
	return sf_send(SF_SYS, in, out, off, 4096);
}

/*
 * Each SQE field SENDFILE does not read, set: -EINVAL. sendfile(2) has no
 * flags nor fields of the kind: the errno is io_uring's, written here.
 */
static void bad_sqe_fields(int in, int sock)
{
	static const char *const names[] = {
		"addr", "ioprio", "buf_index", "addr3", "__pad2",
		"SPLICE_F_MOVE", "SPLICE_F_NONBLOCK", "IOSQE_BUFFER_SELECT",
	};
	struct io_uring ring;

	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	for (int i = 0; i < 8; i++) {
		int ret = t_run(&ring, {
			io_uring_prep_sendfile(t_sqe, sock, in, 0, 4096, 0);
			switch (i) {
			case 0: t_sqe->addr = 1; break;
			case 1: t_sqe->ioprio = 1; break;
			case 2: t_sqe->buf_index = 1; break;
			case 3: t_sqe->addr3 = 1; break;
			case 4: t_sqe->__pad2[0] = 1; break;
			case 5: t_sqe->splice_flags = SPLICE_F_MOVE; break;
			case 6: t_sqe->splice_flags = SPLICE_F_NONBLOCK; break;
			case 7: t_sqe->flags |= IOSQE_BUFFER_SELECT; break;
			}
		});
		/* the core refuses a buffer select the op does not take */
		t_check_res(ret, i == 7 ? -EOPNOTSUPP : -EINVAL, "%s set: %s",
			    names[i], i == 7 ? "-EOPNOTSUPP" : "-EINVAL");
	}
	io_uring_queue_exit(&ring);
}

/*
 * sendfile(2) of @in to @out from @off, which must fail with @want (what
 * the case is about), then SENDFILE of the same: it must fail the same.
 */
static void as_syscall(const char *what, int in, int out, long long off,
		       int want)
{
	int sys = sys_send(in, out, off);

	t_check_res(sys, want, "sendfile(2) %s fails with -%s", what,
		    strerrorname_np(-want));
	t_check_res(ring_send(in, out, off), sys, "SENDFILE %s fails the same",
		    what);
}

/* Inputs sendfile(2) refuses: the same error, from an fd and a slot. */
static void bad_inputs(int sock)
{
	struct io_uring ring;
	int wronly = open(FILE_PATH, O_WRONLY);
	int dir = open(TMP, O_RDONLY | O_DIRECTORY);
	int opath = open(FILE_PATH, O_PATH);
	int good = open(FILE_PATH, O_RDONLY);
	int fds[] = { wronly, dir, opath }, ret;
	static const char *const names[] = {
		"a write-only file", "a directory", "an O_PATH file" };
	/* a directory has no splice_read: splice refuses it */
	static const int wants[] = { -EBADF, -EINVAL, -EBADF };
	char what[64];

	t_assert(wronly >= 0 && dir >= 0 && opath >= 0 && good >= 0, "open");
	for (int i = 0; i < 3; i++) {
		snprintf(what, sizeof(what), "from %s", names[i]);
		as_syscall(what, fds[i], sock, 0, wants[i]);
	}
	as_syscall("from fd -1", -1, sock, 0, -EBADF);
	as_syscall("from offset -2", good, sock, -2, -EINVAL);
	as_syscall("to fd -1", good, -1, 0, -EBADF);

	/* the same inputs in slots; O_PATH only by an OPENAT into one */
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "sparse table");
	t_assert(io_uring_register_files_update(&ring, 0, fds, 2) == 2,
		 "update");
	t_assert(!t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
				FILE_PATH, O_PATH, 0, 2)), "O_PATH slot");
	for (int i = 0; i < 3; i++)
		t_check_res(t_run(&ring,
				  io_uring_prep_sendfile(t_sqe, sock, i, 0,
						4096, SPLICE_F_FD_IN_FIXED)),
			    sys_send(fds[i], sock, 0),
			    "SENDFILE from %s in a slot fails as sendfile(2)",
			    names[i]);
	/* an empty slot is what a closed fd is to sendfile(2) */
	ret = t_run(&ring, io_uring_prep_sendfile(t_sqe, sock, 3, 0, 4096,
						  SPLICE_F_FD_IN_FIXED));
	t_check_res(ret, sys_send(t_closed_fd(), sock, 0),
		    "SENDFILE from an empty slot fails as sendfile(2) from a "
		    "closed fd");
	/* a slot index the table does not have: no fd stands for it */
	t_check_res(t_run(&ring, io_uring_prep_sendfile(t_sqe, sock, 99, 0,
					4096, SPLICE_F_FD_IN_FIXED)),
		    -EBADF, "SENDFILE from a slot past the table: -EBADF");
	io_uring_queue_exit(&ring);
	close(wronly);
	close(dir);
	close(opath);
	close(good);
}

/* Outputs sendfile(2) refuses: an O_APPEND socket, a read-only file. */
static void bad_outputs(int sock)
{
	int in = open(FILE_PATH, O_RDONLY);
	int flags = fcntl(sock, F_GETFL);

	t_assert(in >= 0 && flags >= 0 &&
		 !fcntl(sock, F_SETFL, flags | O_APPEND), "O_APPEND socket");
	as_syscall("into an O_APPEND socket", in, sock, 0, -EINVAL);
	t_assert(!fcntl(sock, F_SETFL, flags), "flags back");
	/* a file not open for writing, checked before the socket is */
	as_syscall("into a read-only file", in, in, 0, -EBADF);
	close(in);
}

/*
 * A peer gone, in a child with SIGPIPE at its default action: sendfile(2)
 * is killed by it, SENDFILE is not and completes as sendfile(2) with
 * SIGPIPE ignored does on the same socket, with -EPIPE.
 */
static void peer_gone(int family, enum sf_way way)
{
	int status, sv[2];
	pid_t pid;

	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		int in = open(FILE_PATH, O_RDONLY), sys, ret;

		signal(SIGPIPE, SIG_DFL);
		sf_pair(family, sv);
		close(sv[1]);
		/* TCP learns of it from the RST that a first send brings */
		for (int i = 0; i < 100; i++) {
			if (send(sv[0], "x", 1, MSG_NOSIGNAL) < 0 &&
			    errno == EPIPE)
				break;
			usleep(10000);
		}
		if (way == SF_SYS)
			_exit(sf_send(way, in, sv[0], 0, 4096) == -EPIPE ? 0 : 1);
		/* an ignored SIGPIPE is discarded, not left pending */
		signal(SIGPIPE, SIG_IGN);
		sys = sf_send(SF_SYS, in, sv[0], 0, 4096);
		signal(SIGPIPE, SIG_DFL);
		ret = sf_send(way, in, sv[0], 0, 4096);
		if (sys != -EPIPE || ret != sys)
			printf("    sendfile(2) %d, %s %d\n", sys,
			       sf_way_names[way], ret);
		_exit(sys == -EPIPE && ret == sys ? 0 : 1);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	if (way == SF_SYS)
		t_check(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE,
			"%s: sendfile(2) to a peer gone dies of SIGPIPE",
			family == AF_UNIX ? "unix" : "tcp");
	else
		t_check(WIFEXITED(status) && !WEXITSTATUS(status),
			"%s: %s to a peer gone completes as sendfile(2) "
			"with SIGPIPE ignored, -EPIPE, and no signal (status "
			"%#x)",
			family == AF_UNIX ? "unix" : "tcp", sf_way_names[way],
			status);
}

int main(void)
{
	int in, sv[2];

	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	mkdir(TMP, 0755);
	t_make_file(FILE_PATH, 8192);
	in = open(FILE_PATH, O_RDONLY);
	t_assert(in >= 0, "open");
	t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	t_assert(!setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &(int){ 1 << 20 },
			     sizeof(int)), "rcvbuf");

	bad_sqe_fields(in, sv[0]);
	bad_inputs(sv[0]);
	bad_outputs(sv[0]);
	for (int f = 0; f < 2; f++)
		for (enum sf_way w = SF_SYS; w < SF_NR_WAYS; w++)
			peer_gone(f ? AF_UNIX : AF_INET, w);
	close(in);
	close(sv[0]);
	close(sv[1]);
	return t_exit();
}
