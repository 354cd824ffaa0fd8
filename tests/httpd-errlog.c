// SPDX-License-Identifier: MIT
/*
 * Description: --error-log FILE takes what nofd-httpd says: its start-up
 * lines (where it serves, whom as), a failed open other than a 404 (a
 * mode-000 file, as the user it serves as: 403) with its path and
 * error, and a limit reached (--max-conns: the connection answered 503),
 * each with its time, while a 404 says nothing there and nothing goes to
 * stderr. SIGUSR1 reopens it: after a rename, the next line goes to a
 * new file of the same name. A FILE that cannot be opened stops the
 * server at start with exit 1.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-errlog"
#define LOGDIR "/tmp/httpd-errlog-logs"
#define ERRLOG LOGDIR "/error.log"
#define NOBODY 65534

static char buf[65536];

static bool file_has(const char *path, const char *what)
{
	ssize_t n = t_read_file(path, buf, sizeof(buf) - 1);

	if (n < 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, what) != NULL;
}

/*
 * Start the server with --error-log ERRLOG and --max-conns 1: its port,
 * from the error log's first line, once the line after it (who it serves
 * as) is there too; its stderr in *@err.
 */
static int start(pid_t *pid, int *err)
{
	const char *argv[] = { HTTPD_BIN, "--port", "0", "--addr", "127.0.0.1",
			       "--root", ROOT, "-n", "--threads", "1",
			       "--error-log", ERRLOG, "--max-conns", "1",
			       httpd_stock() ? "--stock" : NULL, NULL };
	const char *p;
	int fds[2];

	t_assert(pipe(fds) == 0, "pipe");
	*pid = fork();
	t_assert(*pid >= 0, "fork");
	if (!*pid) {
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execv(HTTPD_BIN, (char **)argv);
		_exit(127);
	}
	close(fds[1]);
	*err = fds[0];
	/* the port, then who it serves as, a moment later: both written */
	t_assert(t_wait_for(file_has(ERRLOG, "nofd-httpd: serving as ")),
		 "the server starts: who it serves as in the error log");
	p = strstr(buf, " port ");
	t_assert(p, "its port in the error log");
	return atoi(p + 6);
}

static int stop(pid_t pid, int err, char *out, size_t size)
{
	ssize_t n, len = 0;
	int status;

	kill(pid, SIGTERM);
	while (len < (ssize_t)size - 1 &&
	       (n = read(err, out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(err);
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
	struct hc_resp r;
	char out[4096];
	int port, err, a, b, status;
	pid_t pid;

	mkdir(ROOT, 0755);
	mkdir(LOGDIR, 0755);
	t_assert(!chown(LOGDIR, NOBODY, NOBODY), "chown " LOGDIR);
	unlink(ERRLOG);
	unlink(ERRLOG ".1");
	t_write_file(ROOT "/secret.txt", "secret\n", 7);
	chmod(ROOT "/secret.txt", 0);

	port = start(&pid, &err);
	t_check(file_has(ERRLOG, "nofd-httpd: serving " ROOT " on 127.0.0.1 "
			 "port ") &&
		file_has(ERRLOG, "nofd-httpd: serving as "), "the start-up "
		"lines are in the error log: %s", buf);
	t_check_res(hc_get(port, "/missing", buf, sizeof(buf), &r), 404,
		    "GET /missing: 404");
	t_check_res(hc_get(port, "/secret.txt", buf, sizeof(buf), &r), 403,
		    "GET /secret.txt (mode 000): 403");
	t_check(t_wait_for(file_has(ERRLOG, "] opening secret.txt under the "
				    "root: Permission denied\n")),
		"the 403's failed open is in the error log, dated: %s", buf);
	t_check(!file_has(ERRLOG, "missing"), "the 404 is not");

	/* --max-conns 1: the second connection at once is a 503 */
	a = hc_connect(port);
	hc_send(a, "GET /missing HTTP/1.1\r\nHost: t\r\n\r\n", 34);
	t_assert(recv(a, buf, sizeof(buf), 0) > 0, "the first is served");
	b = hc_connect(port);
	hc_send(b, "GET /missing HTTP/1.1\r\nHost: t\r\n\r\n", 34);
	hc_read_all(b, buf, sizeof(buf));
	t_check(!strncmp(buf, "HTTP/1.1 503", 12), "the second: 503");
	close(a);
	close(b);
	t_check(t_wait_for(file_has(ERRLOG, "] limit reached: --max-conns: "
				    "a connection answered 503\n")),
		"the limit reached is in the error log: %s", buf);

	/* SIGUSR1: a new error log */
	t_assert(!rename(ERRLOG, ERRLOG ".1"), "rename the error log");
	kill(pid, SIGUSR1);
	t_check(t_wait_for(!access(ERRLOG, F_OK)), "SIGUSR1: a new %s",
		ERRLOG);
	hc_get(port, "/secret.txt", buf, sizeof(buf), &r);
	t_check(t_wait_for(file_has(ERRLOG, "opening secret.txt")),
		"SIGUSR1: the next line goes to the new file");
	t_check(file_has(ERRLOG ".1", "opening secret.txt") &&
		file_has(ERRLOG ".1", "limit reached"), "and the renamed one "
		"keeps the earlier ones");
	t_check_res(stop(pid, err, out, sizeof(out)), 0, "SIGTERM: exit 0");
	t_check(!out[0], "nothing went to stderr: '%s'", out);

	/* a file it cannot open: exit 1 at start */
	{
		const char *argv[] = { HTTPD_BIN, "--port", "0", "--root", ROOT,
				       "--error-log", "/nonexistent/dir/e.log",
				       NULL };

		pid = fork();
		t_assert(pid >= 0, "fork");
		if (!pid) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 2);
			execv(HTTPD_BIN, (char **)argv);
			_exit(127);
		}
		t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
		t_check(WIFEXITED(status) && WEXITSTATUS(status) == 1,
			"--error-log in a missing directory: exit 1 at start");
	}
	return t_exit();
}
