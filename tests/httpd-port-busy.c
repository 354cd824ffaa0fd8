// SPDX-License-Identifier: MIT
/*
 * Description: a second nofd-httpd on a port that one already serves
 * fails at start with "Address already in use", as nginx does, and the
 * first keeps every connection. Each of its threads used to listen on a
 * socket of its own with SO_REUSEPORT, so a second server (another root)
 * on the same port joined the group silently and took some of the
 * requests (8 of 12 in one run). Now the first thread's listener, made
 * without SO_REUSEPORT, is shared with the other threads' rings by
 * MSG_RING. Server A (two threads) serves ROOT/a; server B is started on
 * A's port with ROOT/b; then 12 requests must all get A's file.
 */
#include <sys/wait.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-port-busy"

static char buf[4096];

/* Run a second server on @port; its exit status, its stderr in @log */
static int second_server(int port, char *log, size_t size)
{
	char port_s[16];
	int p[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	snprintf(port_s, sizeof(port_s), "%d", port);
	t_assert(!pipe(p), "pipe");
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execl(HTTPD_BIN, HTTPD_BIN, "--port", port_s, "--addr",
		      "127.0.0.1", "--root", ROOT "/b", "-n",
		      httpd_stock() ? "--stock" : NULL, NULL);
		_exit(127);
	}
	close(p[1]);
	/* a server that started does not exit: stop it after a while */
	for (int i = 0; i < 20 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(100 * 1000);
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGTERM);
		t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	}
	while (len < (ssize_t)size - 1 &&
	       (n = read(p[0], log + len, size - 1 - len)) > 0)
		len += n;
	log[len] = '\0';
	close(p[0]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "2", NULL };
	static char log[8192];
	struct hc_resp r;
	struct httpd h;
	int status, mine = 0;

	mkdir(ROOT, 0755);
	mkdir(ROOT "/a", 0755);
	mkdir(ROOT "/b", 0755);
	t_write_file(ROOT "/a/who.txt", "a\n", 2);
	t_write_file(ROOT "/b/who.txt", "b\n", 2);
	httpd_start(&h, ROOT "/a", argv);

	status = second_server(h.port, log, sizeof(log));
	t_check(status == 1 && strstr(log, "Address already in use"),
		"a second server on the same port fails at start (status %d): "
		"%s", status, log);
	for (int i = 0; i < 12; i++)
		mine += hc_get(h.port, "/who.txt", buf, sizeof(buf), &r) ==
			200 && r.body_len == 2 && r.body[0] == 'a';
	t_check_res(mine, 12, "every request is the first server's");
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit status: %s", h.log);
	return t_exit();
}
