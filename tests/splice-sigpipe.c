// SPDX-License-Identifier: MIT
/*
 * Description: no SPLICE raises SIGPIPE in its submitter. splice(2) into
 * a pipe whose reader is gone, or into a socket whose peer is gone, sends
 * its caller SIGPIPE; an io_uring request never signals the task that
 * submitted it (its sends force MSG_NOSIGNAL, and an io-wq worker blocks
 * signals), it completes with -EPIPE. Series v8 ran SPLICE inline and
 * killed the submitting process instead. Each case runs in a child with
 * SIGPIPE at its default action: splice(2) must kill it (the case is a
 * real trigger), and SPLICE of an fd and of a slot, with and without
 * IOSQE_ASYNC, must complete with -EPIPE and leave it alive.
 */
#include <signal.h>
#include <sys/wait.h>

#include "test.h"

#define TMP "/tmp/splice-sigpipe"
#define IN_SLOT 0

enum way { SYS, RING, RING_FIXED, RING_ASYNC, NR_WAYS };

static const char *const way_names[NR_WAYS] = {
	"splice(2)", "SPLICE of an fd", "SPLICE of a slot",
	"SPLICE with IOSQE_ASYNC",
};

/* The input and output of a case; @out's other end is already closed. */
struct ends {
	int in, out;
};

/* A tmpfs file into a pipe whose read end is closed. */
static void file_to_pipe(struct ends *e)
{
	int p[2];

	e->in = open(TMP "/f", O_RDONLY);
	t_assert(e->in >= 0, "open");
	t_assert(!pipe(p), "pipe");
	close(p[0]);
	e->out = p[1];
}

/* A pipe holding 4 KiB into a unix socket whose peer is closed. */
static void pipe_to_socket(struct ends *e)
{
	static char buf[4096];
	int p[2], sv[2];

	t_assert(!pipe(p), "pipe");
	t_assert(write(p[1], buf, sizeof(buf)) == sizeof(buf), "fill");
	t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	close(sv[1]);
	e->in = p[0];
	e->out = sv[0];
}

/* In the child: splice 4 KiB from @e one way; -errno or the count. */
static int splice_way(enum way way, const struct ends *e)
{
	struct io_uring ring;
	int ret;

	if (way == SYS) {
		ret = splice(e->in, NULL, e->out, NULL, 4096, 0);
		return ret < 0 ? -errno : ret;
	}
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files(&ring, &e->in, 1), "register");
	return t_run(&ring, {
		if (way == RING_FIXED)
			io_uring_prep_splice(t_sqe, IN_SLOT, -1, e->out, -1,
					     4096, SPLICE_F_FD_IN_FIXED);
		else
			io_uring_prep_splice(t_sqe, e->in, -1, e->out, -1,
					     4096, 0);
		if (way == RING_ASYNC)
			t_sqe->flags |= IOSQE_ASYNC;
	});
}

/*
 * Run one way in a child with SIGPIPE at its default; the status it ended
 * with, and in *@res what the splice returned if it lived.
 */
static int in_child(void (*make)(struct ends *), enum way way, int *res)
{
	int fds[2], status;
	pid_t pid;

	t_assert(!pipe(fds), "pipe");
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		struct ends e;
		int r;

		close(fds[0]);
		signal(SIGPIPE, SIG_DFL);
		make(&e);
		r = splice_way(way, &e);
		t_assert(write(fds[1], &r, sizeof(r)) == sizeof(r), "report");
		_exit(0);
	}
	close(fds[1]);
	*res = 0;
	if (read(fds[0], res, sizeof(*res)) != sizeof(*res))
		*res = 1;	/* no report: it died before */
	close(fds[0]);
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	return status;
}

static void one_case(const char *what, void (*make)(struct ends *))
{
	int status, res;

	status = in_child(make, SYS, &res);
	t_check(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE,
		"%s: splice(2) is killed by SIGPIPE (status 0x%x)", what,
		status);
	for (int w = RING; w < NR_WAYS; w++) {
		status = in_child(make, w, &res);
		t_check(WIFEXITED(status) && !WEXITSTATUS(status),
			"%s: %s raises no signal (status 0x%x%s%s)", what,
			way_names[w], status, WIFSIGNALED(status) ? ": " : "",
			WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "");
		if (WIFEXITED(status))
			t_check_res(res, -EPIPE, "%s: %s completes with -EPIPE",
				    what, way_names[w]);
	}
}

int main(void)
{
	t_assert(!mkdir(TMP, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mount("tmpfs", TMP, "tmpfs", 0, NULL), "mount");
	t_make_file(TMP "/f", 65536);

	one_case("tmpfs file -> pipe with no reader", file_to_pipe);
	one_case("pipe -> unix socket whose peer closed", pipe_to_socket);

	t_check_umount(TMP);
	return t_exit();
}
