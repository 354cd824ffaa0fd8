// SPDX-License-Identifier: MIT
/*
 * Description: a graceful stop as a balancer in front needs it. SIGTERM
 * closes nofd-httpd's listener at once: while a 16 MiB response is still
 * being sent (more than the client's socket and the server's send buffer
 * hold), a connect() to the port is refused with ECONNREFUSED, where it
 * used to be queued and reset when the server exited; the response then
 * completes byte for byte and the server exits 0. SIGINT does the same. A
 * restart without downtime: while the old server drains such a download
 * after SIGTERM, a new server binds the same port and answers 200, and
 * the old download still completes byte for byte. --drain-timeout bounds
 * the wait: a client that stops reading has its response cut, and the
 * server exits 0 after the limit and within it plus a tick (1 s) and some
 * slack, saying so in its error log. SIGQUIT stops the same way without
 * the limit: the same stalled client, reading again after three times the
 * limit, gets the whole body.
 */
#include <linux/sockios.h>
#include <sys/ioctl.h>

#include "httpd-download.h"

#define ROOT "/tmp/httpd-drain"
#define BIG (16 << 20)

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static bool alive(pid_t pid)
{
	int status;

	return waitpid(pid, &status, WNOHANG) == 0;
}

static long wmem_max(void)
{
	long min, def, max = -1;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_wmem", "r");

	t_assert(f && fscanf(f, "%ld %ld %ld", &min, &def, &max) == 3,
		 "tcp_wmem");
	fclose(f);
	return max;
}

/*
 * Send @sig to @h, whose client @s has read @got bytes of the download
 * and stopped: connect() is refused soon after, while the server is
 * still sending and running
 */
static void refused_while_sending(struct httpd *h, int sig, const char *what,
				  int s, size_t got)
{
	struct timespec t0;
	int err = 0, inq, accepted = 0;
	long ms;

	kill(h->pid, sig);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/*
	 * until refused: a connect() that met the listener as it closed is
	 * answered, then reset with its queue (ECONNRESET), as one made
	 * before the signal
	 */
	while (ms_since(&t0) < 5000 &&
	       ((err = hc_try_connect(h->port)) == 0 || err == ECONNRESET)) {
		accepted++;
		usleep(5000);
	}
	ms = ms_since(&t0);
	t_check(err == ECONNREFUSED, "%s: connect() refused after %ld ms (%d "
		"connected or reset before): %s", what, ms, accepted,
		strerror(err));
	t_assert(!ioctl(s, SIOCINQ, &inq), "SIOCINQ");
	t_check(got + inq + wmem_max() + 65536 < BIG, "%s: meanwhile the "
		"server is still sending (%zu bytes read, %d queued, its send "
		"buffer at most %ld, of %d)", what, got, inq, wmem_max(), BIG);
	t_check(alive(h->pid), "%s: the server is still running", what);
}

int main(void)
{
	static const struct {
		int sig;
		const char *name;
	} stops[] = { { SIGTERM, "SIGTERM" }, { SIGINT, "SIGINT" } };
	const char *argv[] = { "-n", "--threads", "2", NULL };
	const char *limit[] = { "-n", "--threads", "2", "--drain-timeout",
				"500", NULL };
	char port[16], buf[4096];
	const char *again[] = { "-n", "--threads", "2", "--port", port,
				NULL };
	struct timespec t0;
	struct httpd h, h2;
	struct hc_resp r;
	size_t got = 0;
	bool head = false, ok;
	int s;
	long ms;

	mkdir(ROOT, 0755);
	dl_make(ROOT, BIG);
	t_write_file(ROOT "/small.txt", "small\n", 6);

	/* SIGTERM, and SIGINT the same: refused at once, the response in
	 * flight completes */
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		httpd_start(&h, ROOT, argv);
		s = dl_start(h.port);
		got = 0;
		head = false;
		t_assert(dl_read(s, BIG, 65536, &got, &head),
			 "the response starts");
		refused_while_sending(&h, stops[i].sig, stops[i].name, s, got);
		ok = dl_read(s, BIG, BIG, &got, &head);
		t_check(ok && got == BIG, "%s: then the whole body arrives, "
			"byte for byte (%zu)", stops[i].name, got);
		close(s);
		t_check_res(httpd_stop(&h, 0), 0, "%s: exit 0", stops[i].name);
	}

	/*
	 * A restart without downtime: once the draining server has closed
	 * its listener, a new one binds the same port and serves, while the
	 * old one's download goes on to its end
	 */
	httpd_start(&h, ROOT, argv);
	s = dl_start(h.port);
	got = 0;
	head = false;
	t_assert(dl_read(s, BIG, 65536, &got, &head), "the response starts");
	refused_while_sending(&h, SIGTERM, "restart", s, got);
	snprintf(port, sizeof(port), "%d", h.port);
	httpd_start(&h2, ROOT, again);
	t_check_res(h2.port, h.port, "restart: a new server binds the port "
		    "the draining one listened on");
	t_check(hc_get(h2.port, "/small.txt", buf, sizeof(buf), &r) == 200 &&
		r.body_len == 6 && !memcmp(r.body, "small\n", 6),
		"restart: the new server answers 200 with the file");
	t_check(alive(h.pid), "restart: meanwhile the old one still drains");
	ok = dl_read(s, BIG, BIG, &got, &head);
	t_check(ok && got == BIG, "restart: the old server's download "
		"arrives whole, byte for byte (%zu)", got);
	close(s);
	t_check_res(httpd_stop(&h, 0), 0, "restart: the old server exits 0");
	t_check_res(httpd_stop(&h2, SIGTERM), 0, "restart: the new server "
		    "exits 0 on SIGTERM");

	/* --drain-timeout 500: a stalled client is cut */
	httpd_start(&h, ROOT, limit);
	s = dl_start(h.port);
	got = 0;
	head = false;
	t_assert(dl_read(s, BIG, 65536, &got, &head), "the response starts");
	kill(h.pid, SIGTERM);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t_check_res(httpd_stop_within(&h, 0, 20), 0, "--drain-timeout 500: "
		    "exit 0");
	ms = ms_since(&t0);
	t_check(ms >= 500 && ms < 500 + 1000 + 2000, "--drain-timeout 500: "
		"it exits after %ld ms, not before the limit and within it "
		"plus a tick and 2 s", ms);
	t_check(!dl_read(s, BIG, BIG, &got, &head) && got < BIG,
		"--drain-timeout 500: the stalled response is cut (%zu of %d)",
		got, BIG);
	close(s);
	t_check(strstr(h.log, "--drain-timeout 500 ms passed: 1 connection "
		       "cut") != NULL, "--drain-timeout: the error log says "
		"so: %s", h.log);

	/* SIGQUIT: no limit */
	httpd_start(&h, ROOT, limit);
	s = dl_start(h.port);
	got = 0;
	head = false;
	t_assert(dl_read(s, BIG, 65536, &got, &head), "the response starts");
	kill(h.pid, SIGQUIT);
	usleep(1500 * 1000);
	t_check(alive(h.pid), "SIGQUIT: after 1.5 s, three times the drain "
		"limit, the server waits for the stalled client");
	t_check_res(hc_try_connect(h.port), ECONNREFUSED, "SIGQUIT: connect() "
		    "is refused");
	ok = dl_read(s, BIG, BIG, &got, &head);
	t_check(ok && got == BIG, "SIGQUIT: the whole body arrives (%zu)",
		got);
	close(s);
	t_check_res(httpd_stop(&h, 0), 0, "SIGQUIT: exit 0");
	return t_exit();
}
