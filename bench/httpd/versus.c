// SPDX-License-Identifier: MIT
/*
 * versus: the second part of `make demo`, run in the guest under
 * -icount shift=0,sleep=off (guest time counts executed instructions, so
 * host load does not move the figures; docs/benchmarks.md). It builds a
 * sample site, then for each server (nofd-httpd, in its full and its
 * stock mode; nginx with open_file_cache off and on; with --variants also
 * nofd-httpd with each send strategy forced, without
 * SINGLE_ISSUER|DEFER_TASKRUN and with multishot RECVs) and each load (a small page with
 * keep-alive and with Connection: close, a 1 MiB file with keep-alive,
 * 10,000 distinct 4 KiB files with keep-alive, the small page over 256
 * connections, and "arena", shaped like HttpArena's static profile: 20
 * files of 3-67 KiB drawn at random over 256 connections, each asked for
 * with "Accept-Encoding: br, gzip" and answered from its precompressed
 * sibling, nofd-httpd's --precompressed against nginx's brotli_static and
 * gzip_static; arena.c), a server started afresh for the load and warmed
 * up by a second of it, drives it with Debian's wrk and measures
 * requests/s and p50/p99 latency (wrk's, in guest time), server CPU per
 * request (the servers' own CPU clocks, all their processes and threads),
 * syscalls per request (a ptrace count in a separate run), and the most
 * descriptors the server held (/proc/PID/fd, sampled), in ROUNDS
 * interleaved rounds.
 *
 *   versus [--quick] [--rounds=N] [--variants] [--only=SERVER] [--load=LOAD]
 *   versus --job=SERVER,LOAD,DURATION
 *   versus --native [--prefix=DIR] [--quick] [--rounds=N] [--load=LOAD]
 *   versus --nginx-conf [--prefix=DIR]
 *
 * SERVER and LOAD are the names in servers[] and loads[] (versus --help
 * lists them): nofd, nginx-ofc, ...; 1k-keepalive, 1k-close, ...
 * --quick: one round; --only: that server alone (for debugging a server);
 * --load: that load alone (any of loads[], the --job ones too), its
 * syscalls counted under it alone.
 * --native: on the machine it runs on (bench/httpd/native.sh): nofd-httpd and
 * the two nginx, no syscall count, and the ratios of server CPU per
 * request taken round by round; --prefix: the binaries' paths are DIR
 * followed by the guest's (DIR/bin/nofd-httpd, DIR/usr/sbin/nginx,
 * DIR/usr/bin/wrk, and nginx's brotli_static module,
 * DIR/usr/lib/nginx/modules/...: without it nginx serves the arena's .gz
 * files only, and versus says so).
 * --job: SERVER under LOAD for DURATION (wrk's -d), after its second of
 * warm-up, and nothing else; sends home the file job.csv, one row
 * "job,NAME,OPS,CPU_NS,WQ_NS" (bench-run --job's row): NAME is
 * httpd-SERVER-LOAD, OPS the requests wrk completed, CPU_NS the server's
 * CPU time (all its processes and threads), WQ_NS "-" (io-wq workers are
 * not told apart): what `make profile HTTPD=SERVER,LOAD` profiles
 * (profile/run.sh --httpd).
 * --nginx-conf: write nginx's two configurations (off.conf and on.conf in
 * the nginx directory of a new work directory, whose path it prints) and
 * nothing else, leaving them for the caller to remove: make test has
 * Debian's nginx (build/debs) read them with `nginx -t`
 * (tests/host/nginx-conf.sh, with --prefix=build/debs, where the
 * module is): a line it refuses fails there.
 *
 * Everything it makes (the site, nginx's files, wrk's script, the access
 * log) is in a directory of its own, /tmp/versus.XXXXXX, removed at exit.
 *
 * Output: progress lines, and the file versus.csv sent home (lib/frame.h)
 * a row at a time: what each measurement gave, as raw as it came, for
 * build/host/versus-report (bench/httpd/versus-report.c, which says what the
 * rows are) to make the tables and the chart of on the host.
 * bench/httpd/demo.sh and native.sh run both.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "fdcount.h"
#include "frame.h"
#include "site.h"

#define MAX_ROUNDS 5	/* versus-report's too */
#define MAX_PIDS 16

struct server {
	const char *id;		/* its name in --job and --only */
	const char *name;
	const char *addr;
	const char *argv[20];
};

/*
 * both servers' open-file caches hold every file of the many-files load;
 * nofd-httpd says at exit how many requests its cache served (--stats);
 * both serve as root (nginx.conf's "user root"; the site is in a 0700
 * work directory)
 */
#define NOFD(port, ...) { "/bin/nofd-httpd", "--addr", "127.0.0.1",	\
	"--port", port, "--root", site, "--threads", "2", "--access-log",	\
	access_log, "--file-cache", "10000", "--stats", "--user", "root",	\
	__VA_ARGS__ }


/*
 * nginx is servers[NGINX], the next nginx with open_file_cache (natively
 * the two measured with nofd-httpd, servers[0]). The first NMAIN are
 * measured by default; --variants adds nofd-httpd's send strategies
 * forced, its rings without DEFER_TASKRUN and multishot RECVs.
 */
#define NGINX 2
#define NMAIN 4
static const struct server servers[] = {
	{ "nofd", "nofd-httpd", "127.0.0.1:8080", NOFD("8080", NULL) },
	{ "nofd-stock", "nofd-httpd --stock", "127.0.0.1:8084",
	  NOFD("8084", "--stock", NULL) },
	{ "nginx", "nginx", "127.0.0.2:8080", { "/usr/sbin/nginx", "-p",
	  nginx_dir, "-c", nginx_off, NULL } },
	{ "nginx-ofc", "nginx open_file_cache", "127.0.0.3:8080", {
	  "/usr/sbin/nginx", "-p", nginx_dir, "-c", nginx_on, NULL } },
	{ "nofd-splice", "nofd-httpd --send splice", "127.0.0.1:8081",
	  NOFD("8081", "--send", "splice", NULL) },
	{ "nofd-read", "nofd-httpd --send read", "127.0.0.1:8082",
	  NOFD("8082", "--send", "read", NULL) },
	{ "nofd-no-defer", "nofd-httpd --no-defer", "127.0.0.1:8083",
	  NOFD("8083", "--no-defer", NULL) },
	{ "nofd-recv-multishot", "nofd-httpd --recv multishot",
	  "127.0.0.1:8085", NOFD("8085", "--recv", "multishot", NULL) },
	{ "nofd-sendfile", "nofd-httpd --send sendfile", "127.0.0.1:8086",
	  NOFD("8086", "--send", "sendfile", NULL) },
};
#define NSERVERS (int)(sizeof(servers) / sizeof(servers[0]))

struct load {
	const char *id;		/* its name in --job */
	const char *name;	/* no comma: it is a field of CSV lines */
	const char *path;	/* or, with script, wrk's Lua script */
	bool close;
	int conns;
	bool script;
	bool precompressed;	/* nofd-httpd with --precompressed */
};

static const struct load loads[] = {
	{ "1k-keepalive", "1 KiB keep-alive", "/page.html", false, 16, false,
	  false },
	{ "1k-close", "1 KiB close", "/page.html", true, 16, false, false },
	{ "1m-keepalive", "1 MiB keep-alive", "/big.bin", false, 16, false,
	  false },
	{ "many-4k", "10000 files of 4 KiB", many_lua, false, 16, true, false },
	{ "1k-256conns", "1 KiB over 256 connections", "/page.html", false,
	  256, false, false },
	{ "arena", "20 files of 3-67 KiB br/gzip over 256 connections",
	  arena_lua, false, 256, true, true },
	/* for --job and --load only (make profile): not in the demo's table */
	{ "2k-keepalive", "2 KiB keep-alive", "/two.html", false, 16, false,
	  false },
	{ "4k-close", "4 KiB close", "/many/0.html", true, 16, false, false },
	{ "4k-keepalive", "4 KiB keep-alive", "/many/0.html", false, 16, false,
	  false },
	{ "8k-keepalive", "8 KiB keep-alive", "/8k.bin", false, 16, false,
	  false },
	{ "16k-keepalive", "16 KiB keep-alive", "/16k.bin", false, 16, false,
	  false },
};
#define NLOADS 6	/* the demo's */
#define NJOB_LOADS (int)(sizeof(loads) / sizeof(loads[0]))

static int nserv = NMAIN;	/* servers[0..nserv) are measured... */
static int nmeasured;
static int only = -1;		/* ...or servers[only] alone... */
static bool native;		/* ...or, natively, NATIVE_SERVERS */
#define NATIVE_SERVERS(s)	((s) == 0 || (s) == NGINX || (s) == NGINX + 1)

static bool measured(int s)
{
	if (native)
		return NATIVE_SERVERS(s);
	return only >= 0 ? s == only : s < nserv;
}
static int rounds = 3;
static const char *duration = "1s";
static int first_load, end_load = NLOADS;	/* --load: one of them */

/* where Debian's libnginx-mod-http-brotli-static puts the module */
#define BROTLI_MODULE "/usr/lib/nginx/modules/ngx_http_brotli_static_module.so"


static bool port_open(const char *addr)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char host[32];
	const char *colon = strchr(addr, ':');
	int s, ok;

	snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
	inet_pton(AF_INET, host, &sa.sin_addr);
	sa.sin_port = htons(atoi(colon + 1));
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok = !connect(s, (void *)&sa, sizeof(sa));
	close(s);
	return ok;
}

/* @pid and its children (nginx's workers) */
static int server_pids(pid_t pid, pid_t *pids)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");
	int n = 0;

	pids[n++] = pid;
	while (dir && (d = readdir(dir)) && n < MAX_PIDS) {
		char path[300], buf[512], *p;
		int fd, len, ppid;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		p = strrchr(buf, ')');
		if (p && sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == pid)
			pids[n++] = atoi(d->d_name);
	}
	if (dir)
		closedir(dir);
	return n;
}

static double cpu_ns(const pid_t *pids, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++) {
		clockid_t clk;
		struct timespec ts;

		if (clock_getcpuclockid(pids[i], &clk) ||
		    clock_gettime(clk, &ts))
			continue;
		sum += ts.tv_sec * 1e9 + ts.tv_nsec;
	}
	return sum;
}

/* the descriptors @n processes hold together (one gone in between: 0) */
static int count_fds_all(const pid_t *pids, int n)
{
	int total = 0;

	for (int i = 0; i < n; i++) {
		int fds = count_fds_of(pids[i]);

		total += fds > 0 ? fds : 0;
	}
	return total;
}

static const char *prefix = "";	/* --prefix: where the binaries are */

/* execv() of @argv, its program looked up under the --prefix directory */
static void exec_prefixed(const char *const *argv)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", prefix, argv[0]);
	execv(path, (char **)argv);
	_exit(127);
}

/*
 * Server @s, its pids in @pids; @precompressed: nofd-httpd with
 * --precompressed (nginx's configuration says gzip_static where it wants it)
 */
static pid_t start_server(int s, bool precompressed, pid_t *pids, int *npids)
{
	pid_t pid = fork();

	if (!pid) {
		const char *argv[sizeof(servers[s].argv) / sizeof(char *) + 1];
		int null = open("/dev/null", O_WRONLY), n = 0;

		dup2(null, 1);
		close(null);
		closefrom(3);	/* natively, what the shell left open */
		for (; servers[s].argv[n]; n++)
			argv[n] = servers[s].argv[n];
		if (precompressed && strstr(argv[0], "nofd-httpd"))
			argv[n++] = "--precompressed";
		argv[n] = NULL;
		exec_prefixed(argv);
	}
	for (int i = 0; i < 2000 && !port_open(servers[s].addr); i++)
		usleep(5000);
	if (!port_open(servers[s].addr))
		die(servers[s].name, -ECONNREFUSED);
	usleep(100000);		/* nginx: let the workers start */
	*npids = server_pids(pid, pids);
	return pid;
}

/* What each task of @pid is doing, for a server that does not stop */
static void dump_tasks(pid_t pid)
{
	char path[300], buf[4096];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		static const char *const files[] = { "stat", "wchan", "stack" };

		if (d->d_name[0] == '.')
			continue;
		for (int i = 0; i < 3; i++) {
			int fd, n;

			snprintf(path, sizeof(path), "/proc/%d/task/%s/%s", pid,
				 d->d_name, files[i]);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				continue;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > 0)
				fprintf(stderr, "  %s: %.*s\n", path, n, buf);
		}
	}
	if (dir)
		closedir(dir);
}

/* SIGTERM; a server still running 20 s (guest time) later is a failure */
static void stop_server(int s, pid_t pid)
{
	int status;

	kill(pid, SIGTERM);
	for (int i = 0; i < 2000; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				return;
			fprintf(stderr, "versus: %s exited with status %#x\n",
				servers[s].name, status);
			exit(1);
		}
		usleep(10000);
	}
	fprintf(stderr, "versus: %s did not stop on SIGTERM:\n",
		servers[s].name);
	dump_tasks(pid);
	kill(pid, SIGKILL);
	exit(1);
}

struct wrk_out {
	double rps, p50, p99;
	long requests, errors;
};

static double wrk_time(const char *s)
{
	double v = atof(s);

	if (strstr(s, "us"))
		return v;
	if (strstr(s, "ms"))
		return v * 1e3;
	return v * 1e6;		/* "s" */
}

static void parse_wrk(const char *out, struct wrk_out *w)
{
	const char *p;

	memset(w, 0, sizeof(*w));
	if ((p = strstr(out, "Requests/sec:")))
		w->rps = atof(p + 13);
	if ((p = strstr(out, " 50% ")))
		w->p50 = wrk_time(p + 5);
	if ((p = strstr(out, " 99% ")))
		w->p99 = wrk_time(p + 5);
	if ((p = strstr(out, " requests in ")))
		for (p--; p > out && p[-1] >= '0' && p[-1] <= '9';)
			p--;
	if (p)
		w->requests = atol(p);
	if ((p = strstr(out, "Non-2xx or 3xx responses:")))
		w->errors += atol(p + 26);
	if ((p = strstr(out, "Socket errors:"))) {
		long c = 0, r = 0, wr = 0, t = 0;

		sscanf(p, "Socket errors: connect %ld, read %ld, write %ld, "
		       "timeout %ld", &c, &r, &wr, &t);
		w->errors += c + wr + t;	/* read: a closed connection */
	}
}

/* Start wrk for @load on @s's address; its pid, its stdout in *@out. */
static pid_t start_wrk(int s, int l, const char *dur, int *out)
{
	const struct load *ld = &loads[l];
	char url[128], conns[16];
	int p[2];
	pid_t pid;

	snprintf(url, sizeof(url), "http://%s%s", servers[s].addr,
		 ld->script ? "/" : ld->path);
	snprintf(conns, sizeof(conns), "%d", ld->conns);
	if (pipe(p))
		die("pipe", -errno);
	pid = fork();
	if (!pid) {
		const char *argv[16] = { "/usr/bin/wrk", "-t", "2", "-c", conns,
					 "-d", dur, "--latency", url };
		int n = 9;

		if (ld->close) {
			argv[n++] = "-H";
			argv[n++] = "Connection: close";
		}
		if (ld->script) {
			argv[n++] = "-s";
			argv[n++] = ld->path;
		}
		argv[n] = NULL;
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		exec_prefixed(argv);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

static size_t read_out(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
	return len;
}

/* @v in the fewest decimals that read back as @v (strtod()), in @buf */
static const char *exact(char *buf, size_t size, double v)
{
	for (int decimals = 0; decimals <= 6; decimals++) {
		snprintf(buf, size, "%.*f", decimals, v);
		if (strtod(buf, NULL) == v)
			return buf;
	}
	snprintf(buf, size, "%.17g", v);
	return buf;
}

/*
 * One measured run: wrk, the server's CPU around it, its fds during it,
 * sent home as a row of versus.csv
 */
static void measure(int s, int l, int round, const pid_t *pids, int npids)
{
	char rps[32], p50[32], p99[32];
	struct wrk_out w;
	char out[8192];
	double cpu0, cpu1;
	int fd, status, most = 0;
	pid_t pid;

	cpu0 = cpu_ns(pids, npids);
	pid = start_wrk(s, l, duration, &fd);
	for (int t = 0; waitpid(pid, &status, WNOHANG) == 0; t++) {
		int n = count_fds_all(pids, npids);

		if (n > most)
			most = n;
		if (t == 1500) {	/* 30 s for a 1 s run */
			fprintf(stderr, "versus: %s, %s: wrk did not finish:\n",
				servers[s].name, loads[l].name);
			for (int i = 0; i < npids; i++)
				dump_tasks(pids[i]);
			dump_tasks(pid);
			exit(1);
		}
		usleep(20000);
	}
	cpu1 = cpu_ns(pids, npids);
	read_out(fd, out, sizeof(out));
	parse_wrk(out, &w);
	if (!w.requests) {
		fprintf(stderr, "versus: %s, %s: wrk gave no result:\n%s\n",
			servers[s].name, loads[l].name, out);
		exit(1);
	}
	frame_line(stdout, "versus.csv",
		   "run,%s,%s,%d,%ld,%.0f,%s,%s,%s,%d,%ld", servers[s].name,
		   loads[l].name, round + 1, w.requests, cpu1 - cpu0,
		   exact(rps, sizeof(rps), w.rps),
		   exact(p50, sizeof(p50), w.p50),
		   exact(p99, sizeof(p99), w.p99), most, w.errors);
}

/*
 * Syscalls per request: trace every task of the server (PTRACE_SEIZE, all
 * threads), count syscall-entry stops while wrk runs each load, then kill
 * the server (traced, it would not exit cleanly on its own).
 */
static void count_syscalls(int s)
{
	pid_t pids[MAX_PIDS];
	int npids, ntasks = 0;
	bool precompressed = false;

	/* one server for every load: --precompressed if one wants it (without
	 * an Accept-Encoding, the others' requests look for no sibling) */
	for (int l = first_load; l < end_load; l++)
		precompressed |= loads[l].precompressed;
	start_server(s, precompressed, pids, &npids);
	for (int i = 0; i < npids; i++) {
		char path[64];
		struct dirent *d;
		DIR *dir;

		snprintf(path, sizeof(path), "/proc/%d/task", pids[i]);
		dir = opendir(path);
		while (dir && (d = readdir(dir)) && ntasks < 64) {
			pid_t tid = atoi(d->d_name);

			if (tid > 0 && !ptrace(PTRACE_SEIZE, tid, NULL,
					       (void *)(PTRACE_O_TRACESYSGOOD |
							PTRACE_O_EXITKILL))) {
				ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
				ntasks++;
			}
		}
		if (dir)
			closedir(dir);
	}
	for (int l = first_load; l < end_load; l++) {
		unsigned long stops = 0;
		struct wrk_out w;
		char out[8192];
		int fd, status;
		pid_t wrk = start_wrk(s, l, "1s", &fd), got;

		for (;;) {
			got = waitpid(-1, &status, __WALL);
			if (got == wrk || got < 0)
				break;
			if (WIFSTOPPED(status)) {
				int sig = WSTOPSIG(status);

				if (sig == (SIGTRAP | 0x80)) {
					stops++;
					sig = 0;
				} else if (status >> 16 == PTRACE_EVENT_STOP ||
					   sig == SIGTRAP) {
					sig = 0;
				}
				ptrace(PTRACE_SYSCALL, got, NULL,
				       (void *)(long)sig);
			}
		}
		read_out(fd, out, sizeof(out));
		parse_wrk(out, &w);
		/* entry and exit stops, two per syscall: the report halves */
		frame_line(stdout, "versus.csv", "syscalls,%s,%s,%lu,%ld",
			   servers[s].name, loads[l].name, stops, w.requests);
	}
	for (int i = 0; i < npids; i++)
		kill(pids[i], SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	if (!ntasks)
		die("PTRACE_SEIZE of the server", -EPERM);
}

static int step, steps;

/* "progress: N/M ...": step N of M starts (vm/progress.sh shows it) */
__attribute__((format(printf, 1, 2)))
static void progress(const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	frame_progress(stdout, ++step, steps, "%s", what);
}

/* --job: one server, one load, one run of @dur; its counts on a line. */
static int run_job(int s, int l, const char *dur)
{
	pid_t pids[MAX_PIDS], pid, wrk;
	struct wrk_out w;
	char out[8192];
	double cpu0, cpu1;
	int npids, fd, status;

	pid = start_server(s, loads[l].precompressed, pids, &npids);
	waitpid(start_wrk(s, l, "1s", &fd), &status, 0);	/* warm-up */
	close(fd);
	cpu0 = cpu_ns(pids, npids);
	wrk = start_wrk(s, l, dur, &fd);
	read_out(fd, out, sizeof(out));
	waitpid(wrk, &status, 0);
	cpu1 = cpu_ns(pids, npids);
	parse_wrk(out, &w);
	stop_server(s, pid);
	if (!w.requests)
		die("--job: wrk gave no result", -EIO);
	frame_line(stdout, "job.csv", "job,httpd-%s-%s,%ld,%.0f,-",
		   servers[s].id, loads[l].id, (long)w.requests, cpu1 - cpu0);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: versus [--quick] [--rounds=N] [--variants] "
		"[--only=SERVER] [--load=LOAD]\n"
		"       versus --job=SERVER,LOAD,DURATION\n"
		"       versus --native [--prefix=DIR] [--quick] [--rounds=N] "
		"[--load=LOAD]\n"
		"       versus --nginx-conf [--prefix=DIR]\n"
		"nofd-httpd against nginx under wrk, in the guest (make demo) "
		"or natively.\nIt sends its rows home (versus.csv); "
		"build/host/versus-report makes the tables\n(bench/httpd/demo.sh "
		"and native.sh run both). bench/httpd/versus.c's first\n"
		"comment says what each option does.\nSERVER:");
	for (int s = 0; s < NSERVERS; s++)
		fprintf(f, " %s", servers[s].id);
	fprintf(f, "\nLOAD (the demo's, then three for --job and --load "
		"only):");
	for (int l = 0; l < NJOB_LOADS; l++)
		fprintf(f, " %s", loads[l].id);
	fprintf(f, "\n");
}

/* The server named @id, or -1 */
static int server_named(const char *id)
{
	for (int s = 0; s < NSERVERS; s++)
		if (!strcmp(servers[s].id, id))
			return s;
	return -1;
}

/* The load named @id, or -1 */
static int load_named(const char *id)
{
	for (int l = 0; l < NJOB_LOADS; l++)
		if (!strcmp(loads[l].id, id))
			return l;
	return -1;
}

/* --job=SERVER,LOAD,DURATION into *@s, *@l and @dur; false if it is not */
static bool parse_job(char *arg, int *s, int *l, char *dur, size_t size)
{
	char *load = strchr(arg, ','), *d = load ? strchr(load + 1, ',') : NULL;

	if (!d || !d[1] || strlen(d + 1) >= size)
		return false;
	*load++ = '\0';
	*d++ = '\0';
	*s = server_named(arg);
	*l = load_named(load);
	strcpy(dur, d);
	return *s >= 0 && *l >= 0;
}

int main(int argc, char **argv)
{
	int job_s = -1, job_l = -1;
	char job_dur[32] = "", brotli[512];
	bool conf_only = false;

	static const struct option longs[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "variants", no_argument, NULL, 'v' },
		{ "only", required_argument, NULL, 'o' },
		{ "load", required_argument, NULL, 'l' },
		{ "job", required_argument, NULL, 'j' },
		{ "native", no_argument, NULL, 'n' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "nginx-conf", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		switch (ch) {
		case 'q': rounds = 1; break;
		case 'r': rounds = atoi(optarg); break;
		case 'v': nserv = NSERVERS; break;
		case 'o':
			only = server_named(optarg);
			if (only >= 0)
				break;
			fprintf(stderr, "versus: --only=%s: no such server "
				"(--help lists them)\n", optarg);
			return 2;
		case 'l':
			first_load = load_named(optarg);
			end_load = first_load + 1;
			if (first_load >= 0)
				break;
			fprintf(stderr, "versus: --load=%s: no such load "
				"(--help lists them)\n", optarg);
			return 2;
		case 'n': native = true; break;
		case 'p': prefix = optarg; break;
		case 'c': conf_only = true; break;
		case 'j':
			if (parse_job(optarg, &job_s, &job_l, job_dur,
				      sizeof(job_dur)))
				break;
			fprintf(stderr, "versus: --job: want SERVER,LOAD,DURATION "
				"(--help lists the names)\n");
			return 2;
		case 'h':
			usage(stdout);
			return 0;
		default:	/* getopt_long() said which */
			fprintf(stderr, "versus: --help for the options\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "versus: '%s': no such option\n", argv[optind]);
		return 2;
	}
	if (rounds < 1 || rounds > MAX_ROUNDS)
		die("--rounds", -EINVAL);
	signal(SIGPIPE, SIG_IGN);
	make_work_dir(conf_only);
	snprintf(brotli, sizeof(brotli), "%s%s", prefix, BROTLI_MODULE);
	if (access(brotli, R_OK))
		printf("versus: no %s: nginx serves the arena's .gz files, not "
		       "their .br\n", brotli);
	make_nginx_conf("off", servers[NGINX].addr, false,
			access(brotli, R_OK) ? NULL : brotli);
	make_nginx_conf("on", servers[NGINX + 1].addr, true,
			access(brotli, R_OK) ? NULL : brotli);
	if (conf_only) {
		printf("%s\n", nginx_dir);
		return 0;
	}
	make_site(native);
	if (job_dur[0])
		return run_job(job_s, job_l, job_dur);
	if (only >= 0 && only >= nserv)
		nserv = only + 1;
	if (native)
		nserv = NGINX + 2;
	for (int s = 0; s < nserv; s++)
		nmeasured += measured(s);
	printf("versus%s: %d servers x %d loads, %d round%s of %s each, wrk "
	       "-t 2 (-c 16 unless the load says), %s\n",
	       native ? " --native" : "", nmeasured, end_load - first_load,
	       rounds,
	       rounds > 1 ? "s" : "", duration, native ?
	       "on this machine's kernel (CPU time, not instructions)" :
	       "2 vCPUs, guest time = instructions");
	fflush(stdout);
	frame_line(stdout, "versus.csv", "versus,%d,%s,%s", rounds, duration,
		   native ? "native" : "guest");

	/*
	 * A step is one load measured, or one server's syscall count. Each
	 * load is served by a server started for it, warmed up by a second
	 * of the same load (caches, the open-file caches), then measured:
	 * nothing one load leaves behind reaches the next.
	 */
	steps = (rounds * (end_load - first_load) + !native) * nmeasured;
	for (int round = 0; round < rounds; round++) {
		for (int l = first_load; l < end_load; l++) {
			for (int s = 0; s < nserv; s++) {
				pid_t pids[MAX_PIDS], pid;
				int npids, fd, status;

				if (!measured(s))
					continue;
				progress("round %d/%d: %s, %s", round + 1,
					 rounds, servers[s].name,
					 loads[l].name);
				pid = start_server(s, loads[l].precompressed,
						   pids, &npids);
				waitpid(start_wrk(s, l, "1s", &fd), &status, 0);
				close(fd);
				measure(s, l, round, pids, npids);
				stop_server(s, pid);
			}
		}
	}
	for (int s = 0; s < nserv && !native; s++)
		if (measured(s)) {
			progress("syscalls per request: %s again, each load "
				 "under ptrace (a run of its own, not timed)",
				 servers[s].name);
			count_syscalls(s);
		}
	return 0;
}
