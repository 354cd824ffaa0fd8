// SPDX-License-Identifier: MIT
/*
 * Description: SIGUSR1 and SIGHUP reopen nofd-httpd's access log by its
 * path, as logrotate's postrotate expects: after the log is renamed and
 * the signal sent, the lines of later requests go to a new file of that
 * name and the renamed one keeps the earlier ones; SIGUSR2 is ignored.
 * None of them stops the server (SIGHUP and SIGUSR1 used to kill it), and
 * a 32 MiB download read slowly across all three completes byte for
 * byte, its line in the newest log. The log's directory belongs to the
 * user the server serves as (nobody): the new file is created as that
 * user. When it may not (the directory made read-only), the reopen fails,
 * the lines go on to the file opened before, and the error log says why.
 * At start the server warns when that user could not create the log anew
 * in its directory (a root-owned /var/log/nofd-httpd: every reopen after
 * a rotation would fail), for the access log and the error log, and says
 * nothing when the directory is the user's.
 */
#include "httpd-download.h"

#define ROOT "/tmp/httpd-reopen"
#define LOGDIR "/tmp/httpd-reopen-logs"
#define ROOTS_DIR "/tmp/httpd-reopen-roots"	/* root's, 0755 */
#define ERRLOG ROOTS_DIR "/error.log"
#define LOG LOGDIR "/access.log"
#define BIG (32 << 20)
#define NOBODY 65534

/*
 * Read the server's stderr as it comes, for up to 10 s, until it says
 * @what; what it said goes to @said. The reopen is asynchronous: its
 * failure may come after the next request is served and logged (seen on
 * a loaded debug guest), so the test waits for the answer before it
 * makes the directory writable again.
 */
static bool stderr_says(struct httpd *h, const char *what, char *said,
			size_t size)
{
	struct pollfd pfd = { .fd = h->err, .events = POLLIN };
	size_t len = strlen(said);

	for (int waited = 0; !strstr(said, what) && waited < 100; ) {
		ssize_t r;

		if (poll(&pfd, 1, 100) <= 0) {
			waited++;
			continue;
		}
		r = read(h->err, said + len, size - 1 - len);
		if (r <= 0)
			break;
		len += r;
		said[len] = '\0';
	}
	return strstr(said, what) != NULL;
}

/* Whether @path holds @what */
static bool file_has(const char *path, const char *what)
{
	static char b[65536];
	ssize_t n = t_read_file(path, b, sizeof(b) - 1);

	if (n < 0)
		return false;
	b[n] = '\0';
	return strstr(b, what) != NULL;
}

/* GET @path (a 404): its line is in @log, not in @other */
static void logged_in(int port, const char *path, const char *log,
		      const char *other, const char *after)
{
	char want[128], buf[4096];
	struct hc_resp r;

	hc_get(port, path, buf, sizeof(buf), &r);
	snprintf(want, sizeof(want), "\"GET %s HTTP/1.1\" 404 ", path);
	t_check(t_wait_for(file_has(log, want)), "%s: GET %s is logged in %s",
		after, path, log);
	if (other)
		t_check(!file_has(other, want), "%s: and not in %s", after,
			other);
}

/* @path, made afresh and given to nobody */
static void nobodys_file(const char *path)
{
	unlink(path);
	t_write_file(path, "", 0);
	t_assert(!chown(path, NOBODY, NOBODY), "chown %s", path);
}

/*
 * What the server says at start about its logs, which it reopens as the
 * user it serves as: nothing when that user may write them and create
 * them in their directory (LOGDIR, nobody's); that it may not create
 * them when the directory is root's (ROOTS_DIR), though the files are
 * nobody's
 */
static void start_warnings(void)
{
	const char *mine[] = { "--access-log", LOG, NULL };
	const char *roots[] = { "--access-log", ROOTS_DIR "/access.log",
				NULL };
	const char *errlog[] = { httpd_bin(), "--port", "0", "--addr",
				 "127.0.0.1", "--root", ROOT, "-n",
				 "--error-log", ERRLOG,
				 httpd_stock() ? "--stock" : NULL, NULL };
	static char b[65536];
	struct httpd h;
	int status;
	ssize_t n;
	pid_t pid;

	mkdir(ROOTS_DIR, 0755);
	chmod(ROOTS_DIR, 0755);
	t_assert(!chown(ROOTS_DIR, 0, 0), "chown " ROOTS_DIR);
	nobodys_file(ROOTS_DIR "/access.log");
	nobodys_file(ERRLOG);

	httpd_start(&h, ROOT, mine);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "the log in nobody's "
		    "directory: exit 0");
	t_check(!strstr(h.log, "may not write") &&
		!strstr(h.log, "may not create"), "the log in nobody's "
		"directory: no warning at start: %s", h.log);

	httpd_start(&h, ROOT, roots);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "nobody's log in root's "
		    "directory: exit 0");
	t_check(strstr(h.log, "nofd-httpd: the user served as may not "
		       "create files in " ROOTS_DIR ", the access log's "
		       "directory: a reopen after a rotation (SIGUSR1, "
		       "SIGHUP) fails unless logrotate makes the file for it"),
		"nobody's access log in root's directory: the warning at "
		"start: %s", h.log);
	t_check(!strstr(h.log, "may not write"), "nobody's access log: no "
		"warning that it may not be written");

	/* its start-up lines go to the error log: no port on stderr */
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		execv(httpd_bin(), (char **)errlog);
		_exit(127);
	}
	for (int i = 0; i < 3000 && !file_has(ERRLOG, " port "); i++)
		usleep(10000);
	kill(pid, SIGTERM);
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && !WEXITSTATUS(status), "--error-log in "
		"root's directory: exit 0 (status %#x)", status);
	n = t_read_file(ERRLOG, b, sizeof(b) - 1);
	t_assert(n >= 0, "read " ERRLOG);
	b[n] = '\0';
	t_check(strstr(b, "may not create files in " ROOTS_DIR ", the error "
		       "log's directory") != NULL, "nobody's error log in "
		"root's directory: the warning, in the error log: %s", b);
}

int main(void)
{
	const char *argv[] = { "--access-log", LOG, "--log-flush", "0",
			       "--threads", "2", NULL };
	struct httpd h;
	char said[4096] = "";
	size_t got = 0;
	bool head = false, ok;
	int s;

	mkdir(ROOT, 0755);
	mkdir(LOGDIR, 0755);
	chmod(LOGDIR, 0755);
	t_assert(!chown(LOGDIR, NOBODY, NOBODY), "chown " LOGDIR);
	unlink(LOG);
	unlink(LOG ".1");
	unlink(LOG ".2");
	unlink(LOG ".3");
	dl_make(ROOT, BIG);

	httpd_start(&h, ROOT, argv);
	s = dl_start(h.port);
	t_assert(dl_read(s, BIG, 1 << 20, &got, &head), "the download starts");
	logged_in(h.port, "/one", LOG, NULL, "at start");

	t_assert(!rename(LOG, LOG ".1"), "rename the log");
	kill(h.pid, SIGUSR1);
	t_check(t_wait_for(!access(LOG, F_OK)), "SIGUSR1: a new %s", LOG);
	t_check(kill(h.pid, 0) == 0, "SIGUSR1: the server runs on");
	t_assert(dl_read(s, BIG, 2 << 20, &got, &head), "the download goes on");
	logged_in(h.port, "/two", LOG, LOG ".1", "SIGUSR1");

	t_assert(!rename(LOG, LOG ".2"), "rename the log");
	kill(h.pid, SIGHUP);
	t_check(t_wait_for(!access(LOG, F_OK)), "SIGHUP: a new %s", LOG);
	t_check(kill(h.pid, 0) == 0, "SIGHUP: the server runs on");
	t_assert(dl_read(s, BIG, 3 << 20, &got, &head), "the download goes on");
	logged_in(h.port, "/three", LOG, LOG ".2", "SIGHUP");

	kill(h.pid, SIGUSR2);
	t_assert(dl_read(s, BIG, 4 << 20, &got, &head), "the download goes on");
	logged_in(h.port, "/four", LOG, NULL, "SIGUSR2");
	t_check(kill(h.pid, 0) == 0, "SIGUSR2: the server runs on");

	/* nobody may not create the file: the old one goes on */
	chmod(LOGDIR, 0555);
	t_assert(!rename(LOG, LOG ".3"), "rename the log");
	kill(h.pid, SIGUSR1);
	t_check(stderr_says(&h, "reopening the access log " LOG ": Permission "
			    "denied; its lines go to the file opened before",
			    said, sizeof(said)),
		"the failed reopen is in the error log: %s", said);
	t_check(access(LOG, F_OK), "SIGUSR1, a read-only directory: no new "
		"log");
	logged_in(h.port, "/five", LOG ".3", NULL, "a failed reopen");
	chmod(LOGDIR, 0755);
	t_assert(!rename(LOG ".3", LOG), "rename the log back");

	ok = dl_read(s, BIG, BIG, &got, &head);
	t_check(ok && got == BIG, "the download read across the signals is "
		"whole, byte for byte (%zu of %d)", got, BIG);
	close(s);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit 0");
	t_check(file_has(LOG, "\"GET /big.bin HTTP/1.1\" 200 33554432\n"),
		"the download's line is in the newest log");

	start_warnings();
	return t_exit();
}
