// SPDX-License-Identifier: MIT
/*
 * bench-run: the whole benchmark, in the guest (or, with --native, the
 * modes that need no nofd operation on the machine's own kernel). Runs
 * every workload, mode and parameter for a fixed number of operations:
 * a short unreported warm-up pass, then seven rounds, interleaved (round 1
 * of everything, then round 2, ...) so that drift hits all modes alike,
 * each followed by the costs of the descriptor work on its own (fdcost);
 * then one more, shorter run of each under syscount to count its system
 * calls. Sends its results home as the file bench.csv (lib/frame.h), a row
 * at a time, on stdout:
 *
 *   run,WORKLOAD,MODE,PARAM,ROUND,OPS,CPU_S,SECONDS,FDOPS,NOFILE_LIMIT
 *   cost,ROUND,INSTALL_NS,FGET_NS,SOCK_NS,REGISTER_NS
 *   sys,WORKLOAD,MODE,PARAM,OPS,SYSCALLS,BY_NR
 *
 * WORKLOAD and PARAM:
 *   conn        connections, one exchange each; PARAM connections in
 *               flight (1, 8, 32); modes epoll, uring, uring-detour,
 *               direct-chain, direct-multishot, uring-multishot
 *               (conn-server.c)
 *   keepalive   PARAM exchanges per connection (1, 10, 100), 8 in flight;
 *               OPS are exchanges; with --job and --smoke also mode
 *               direct-recv-multishot (not in the tables)
 *   files       open, read 4 KiB, close; PARAM files in flight (files.c)
 *   stat        stat by name, or open + fstat + close; PARAM in flight
 *   files-ext4  files and stat with the files on the ext4 disk /dev/vda
 *   stat-ext4   (vm/run.sh --disk), just written, so cached; guest only
 *   depth       one path operation three ways (depth.c): MODE is OP.WAY,
 *   depth-ext4  OP statx-name, statx-slot, open-close or rename, WAY sys,
 *               wq (forced to io-wq) or ring; PARAM in flight (1, 8, 32;
 *               sys: 1); on tmpfs, or the ext4 disk; guest only
 *   files-cold  files and stat on the ext4 disk, caches dropped after the
 *   stat-cold   files are made: a file per operation, each once, from the
 *               disk; PARAM 8 in flight; guest only
 *   walk-ext4   the walk on the ext4 disk, PARAM 0 read once before (warm),
 *               1 with the caches dropped before each walk; guest only
 *   walk        stat every entry of a tree (dirwalk.c); PARAM 0: the tree
 *               on tmpfs; with --job also 1: on the ext4 disk /dev/vda
 *               (vm/run.sh --disk), read once before it is measured
 *   thfiles     files with PARAM threads (1, 2, 4; natively also every
 *               doubling up to the machine's CPUs), 8 in flight each
 *   thconn      conn with PARAM server threads (the same counts), 32 in
 *               flight
 *   conn-dt     conn, io_uring modes, rings with SINGLE_ISSUER |
 *   files-dt    DEFER_TASKRUN; files likewise
 *   files-skip  files, every request of a chain but its last with
 *               IOSQE_CQE_SKIP_SUCCESS (one CQE per chain); with --job also
 *               mode stat-open (not in the tables)
 * OPS are the operations (connections, files, entries) the measured program
 * completed, CPU_S its CPU time over them (the server's, for connections).
 *
 *   bench-run [--quick | --smoke | --full] [--rounds N] [--native]
 *             [--no-syscount] [--only WORKLOAD,...]
 *   bench-run --job WORKLOAD,MODE,PARAM --ops N
 *
 * --quick divides the counts by 5 and runs one round; --full runs the full
 * counts once; --smoke runs every workload in every mode once, at its
 * largest parameter, with tiny counts, and checks that it works (the
 * smoke test of `make test`, which asserts nothing about speed). --native
 * leaves out the jobs that need the nofd kernel.
 * --job runs one job once, with N operations (per thread; walk: a tree of
 * N files in N / 10 directories), and nothing else: what profile/run.sh
 * profiles. It adds the file job.csv, one row "job,NAME,OPS,CPU_NS,WQ_NS"
 * (the row versus --job writes too): NAME is WORKLOAD-MODE-PARAM, CPU_NS
 * the measured program's CPU time, WQ_NS the part of it io-wq workers ran
 * (files, conn-server).
 * The programs are in $BENCH_BIN, by default /bin (the guest's).
 */
#include <sched.h>
#include <stdarg.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bench.h"
#include "frame.h"
#include "workdir.h"


/*
 * The walk's trees, in a directory of its own under /tmp, removed at exit:
 * WORK/tree, and for walk-ext4 (and walk,MODE,1) WORK/disk/tree on the
 * ext4 disk mounted
 * at WORK/disk
 */
static char work[] = "/tmp/bench-run.XXXXXX";
static char tree[80], disk_tree[96], disk_mnt[64];
static bool disk_mounted;

static void remove_work(void)
{
	if (disk_mounted)
		workdir_unmount(disk_mnt);
	workdir_remove(work);
}

/* The work directory, made once, removed at exit. */
static void make_work(void)
{
	static bool made;

	if (made)
		return;
	if (!mkdtemp(work))
		die("mkdtemp", -errno);
	atexit(remove_work);
	made = true;
}

/* The guest's ext4 disk /dev/vda (vm/run.sh --disk), mounted once. */
static const char *disk(void)
{
	make_work();
	if (!disk_mounted) {
		snprintf(disk_mnt, sizeof(disk_mnt), "%s/disk", work);
		if (mkdir(disk_mnt, 0755))
			die(disk_mnt, -errno);
		if (mount("/dev/vda", disk_mnt, "ext4", 0, NULL))
			die("mount /dev/vda (vm/run.sh --disk)", -errno);
		disk_mounted = true;
	}
	return disk_mnt;
}

struct job {
	const char *workload, *mode;
	int param;
	unsigned int flags;
};

enum {
	NOFD	= 1,	/* needs an operation only the nofd kernel has */
	DIRECT	= 2,	/* holds no regular fd per operation: must run with
			 * none to take and make no fd-table operation */
};

struct result {
	unsigned long ops, fdops, syscalls;
	double seconds, cpu, wq_cpu;
	int limit;
	char by_nr[1024];
};

/* Operations per run: connections, exchanges, files, per thread */
static unsigned long n_conn = 1500, n_exch = 3000, n_files = 2000,
		     n_thfiles = 1000, n_cost = 20000;
static int tree_dirs = 2000, tree_files = 20000, native;
static const char *only;	/* comma-separated workloads, or all */
static const char *job_spec;	/* --job WORKLOAD,MODE,PARAM */
/*
 * plan(): the jobs it adds now need the guest (its disk, its caches
 * dropped): named, so that --only may list them, but not run natively
 */
static bool guest_only;
static bool smoke;	/* --smoke: nothing is measured */
static char bin[256];
static int port = 21000, failures, quiesce_us = 200000;

static const char *prog(const char *name)
{
	static char path[4][300];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", bin, name);
	return p;
}

/* Start @argv with its stdout on a pipe; returns the pid, *@out the pipe. */
static pid_t spawn(char *const argv[], FILE **out)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		die("pipe", -errno);
	pid = fork();
	if (pid < 0)
		die("fork", -errno);
	if (!pid) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	*out = fdopen(p[0], "r");
	if (!*out)
		die("fdopen", -errno);
	return pid;
}

/* Read @f to its end, parsing the key=value fields into @r. */
static void parse(FILE *f, struct result *r)
{
	char line[2048];

	while (fgets(line, sizeof(line), f)) {
		for (char *tok = strtok(line, " \n"); tok;
		     tok = strtok(NULL, " \n")) {
			sscanf(tok, "conns=%lu", &r->ops);
			sscanf(tok, "ops=%lu", &r->ops);
			sscanf(tok, "fdops=%lu", &r->fdops);
			sscanf(tok, "nofile_limit=%d", &r->limit);
			sscanf(tok, "seconds=%lf", &r->seconds);
			sscanf(tok, "cpu=%lf", &r->cpu);
			sscanf(tok, "wq_cpu=%lf", &r->wq_cpu);
			sscanf(tok, "syscalls=%lu", &r->syscalls);
			sscanf(tok, "by_nr=%1000s", r->by_nr);
		}
	}
	fclose(f);
}

static void finish(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid", -errno);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench-run: %s failed (status %#x)\n", what,
			status);
		failures++;
	}
}

static char *num(char *buf, unsigned long v)
{
	sprintf(buf, "%lu", v);
	return buf;
}

/* conn, keepalive, thconn: the server measured, the client driving it */
static void run_conn(const struct job *j, unsigned long div, int traced,
		     struct result *r)
{
	int conc = 32, exch = 1, threads = 1;
	unsigned long conns = n_conn;
	char a[5][24], ready[16] = "";
	char *server[8] = { 0 }, *client[6];
	struct result cr = { 0 };
	FILE *sout, *cout;
	pid_t s, c;
	int n = 0;

	if (!strncmp(j->workload, "conn", 4))
		conc = j->param;
	if (!strcmp(j->workload, "keepalive")) {
		conc = 8;
		exch = j->param;
		conns = n_exch / exch;
	}
	if (!strcmp(j->workload, "thconn"))
		threads = j->param;
	conns = conns / div ? conns / div : 1;
	if (traced)
		server[n++] = (char *)prog("syscount");
	server[n++] = (char *)prog("conn-server");
	server[n++] = (char *)j->mode;
	server[n++] = num(a[0], threads);
	server[n++] = num(a[1], port);
	server[n++] = num(a[2], exch);
	if (!strcmp(j->workload, "conn-dt"))
		server[n++] = "dt";
	client[0] = (char *)prog("conn-client");
	client[1] = a[1];
	client[2] = num(a[3], conns);
	client[3] = num(a[4], conc);
	client[4] = a[2];
	client[5] = NULL;
	port++;

	s = spawn(server, &sout);
	if (!fgets(ready, sizeof(ready), sout) || strcmp(ready, "ready\n"))
		die("the server did not start", -EIO);
	c = spawn(client, &cout);
	parse(cout, &cr);
	finish(c, "conn-client");
	kill(s, SIGTERM);
	parse(sout, r);
	finish(s, "conn-server");
	r->seconds = cr.seconds;
	/* keep-alive counts exchanges: its cost per request is the point */
	r->ops *= exch;
	if (cr.ops != conns) {
		fprintf(stderr, "bench-run: %s %s %d: %lu of %lu connections\n",
			j->workload, j->mode, j->param, cr.ops, conns);
		failures++;
	}
}

/* Walk @t once, unmeasured (dirwalk sys): its blocks are cached after */
static void warm_tree(char *t)
{
	char *argv[] = { (char *)prog("dirwalk"), "sys", t, NULL };
	char line[256];
	FILE *out;
	pid_t pid;

	pid = spawn(argv, &out);
	while (fgets(line, sizeof(line), out))
		;
	fclose(out);
	finish(pid, "dirwalk sys");
}

/* Write back, then drop the page cache, dentries and inodes: a cold disk */
static void drop_caches(void)
{
	FILE *f;

	sync();
	f = fopen("/proc/sys/vm/drop_caches", "w");
	if (!f || fputs("3\n", f) < 0 || fclose(f))
		die("/proc/sys/vm/drop_caches", -errno);
}

/* files, stat, thfiles, walk: the program measures itself */
static void run_prog(const struct job *j, unsigned long div, int traced,
		     struct result *r)
{
	char a[3][24], dir[96];
	char *argv[9] = { 0 };
	FILE *out;
	pid_t pid;
	int n = 0;

	if (traced)
		argv[n++] = (char *)prog("syscount");
	if (!strncmp(j->workload, "walk", 4)) {
		bool ext4 = !strcmp(j->workload, "walk-ext4");

		argv[n++] = (char *)prog("dirwalk");
		argv[n++] = (char *)j->mode;
		argv[n++] = ext4 || j->param == 1 ? disk_tree : tree;
		/* cold, or warm whatever ran before (a drop of files-cold) */
		if (ext4 && j->param == 1)
			drop_caches();
		else if (ext4)
			warm_tree(disk_tree);
	} else if (!strncmp(j->workload, "depth", 5)) {
		/* MODE is OP.WAY */
		static char op[24];
		const char *way = strchr(j->mode, '.');
		unsigned long count = n_files / div;

		snprintf(op, sizeof(op), "%.*s", (int)(way - j->mode), j->mode);
		argv[n++] = (char *)prog("depth");
		argv[n++] = op;
		argv[n++] = (char *)way + 1;
		argv[n++] = num(a[0], count ? count : 1);
		argv[n++] = num(a[1], j->param);
		if (strstr(j->workload, "-ext4")) {
			snprintf(dir, sizeof(dir), "dir=%s/bench-depth",
				 disk());
			argv[n++] = dir;
		}
	} else {
		int thread = !strcmp(j->workload, "thfiles");
		unsigned long count = (thread ? n_thfiles : n_files) / div;

		argv[n++] = (char *)prog("files");
		argv[n++] = (char *)j->mode;
		argv[n++] = num(a[0], count ? count : 1);
		argv[n++] = num(a[1], thread ? 8 : j->param);
		argv[n++] = num(a[2], thread ? j->param : 1);
		if (!strcmp(j->workload, "files-dt"))
			argv[n++] = "dt";
		if (!strcmp(j->workload, "files-skip"))
			argv[n++] = "skip";
		if (strstr(j->workload, "-ext4") ||
		    strstr(j->workload, "-cold")) {
			snprintf(dir, sizeof(dir), "dir=%s/bench-files", disk());
			argv[n++] = dir;
		}
		if (strstr(j->workload, "-cold"))
			argv[n++] = "cold";
	}
	pid = spawn(argv, &out);
	parse(out, r);
	finish(pid, j->mode);
}

/*
 * Let the work a run leaves behind (RCU callbacks freeing its files and
 * sockets, deferred fputs, TCP timers) happen now, while the guest idles,
 * rather than in the next run's window, where it would be charged to the
 * measured process. With -icount sleep=off the idle time costs nothing.
 */
static void quiesce(void)
{
	sync();
	usleep(quiesce_us);
}

static void run(const struct job *j, unsigned long div, int traced,
		struct result *r)
{
	quiesce();
	memset(r, 0, sizeof(*r));
	r->limit = -1;
	if (!strncmp(j->workload, "conn", 4) ||
	    !strcmp(j->workload, "keepalive") || !strcmp(j->workload, "thconn"))
		run_conn(j, div, traced, r);
	else
		run_prog(j, div, traced, r);
	if (!r->ops) {
		fprintf(stderr, "bench-run: %s %s %d completed nothing\n",
			j->workload, j->mode, j->param);
		failures++;
	}
	/* the direct modes must have run with no fd-table operation */
	if ((j->flags & DIRECT) && (r->fdops || r->limit < 0)) {
		fprintf(stderr, "bench-run: %s %s made %lu fd-table operations "
			"(limit %d)\n", j->workload, j->mode, r->fdops,
			r->limit);
		failures++;
	}
}

static int nr_jobs;
#define MAX_JOBS	256
static struct job jobs[MAX_JOBS];

/* Every workload plan() names, for --only's check */
static const char *names[32];
static int nr_names;

static void add(const char *workload, const char *mode, int param,
		unsigned int flags)
{
	char list[128];
	int listed = !only, known = 0;

	for (int i = 0; i < nr_names; i++)
		known |= !strcmp(names[i], workload);
	if (!known && nr_names < 32)
		names[nr_names++] = workload;
	if (((flags & NOFD) || guest_only) && native)
		return;
	if (job_spec) {
		snprintf(list, sizeof(list), "%s,%s,%d", workload, mode, param);
		if (strcmp(list, job_spec))
			return;
	}
	snprintf(list, sizeof(list), "%s", only ? only : "");
	for (char *w = strtok(list, ","); w; w = strtok(NULL, ","))
		listed |= !strcmp(w, workload);
	if (!listed)
		return;
	if (nr_jobs == MAX_JOBS)
		die("too many jobs", -E2BIG);
	jobs[nr_jobs++] = (struct job){ workload, mode, param, flags };
}

struct mode {
	const char *name;
	unsigned int flags;
};

/*
 * @w in each of the @nm modes @m, each at the @np parameters @p; with
 * --smoke at the last (largest) only: the programs take the same path at
 * every depth, and the smoke test wants each workload and mode to run.
 */
static void add_each(const char *w, const struct mode *m, int nm,
		     const int *p, int np)
{
	for (int i = 0; i < nm; i++)
		for (int j = smoke ? np - 1 : 0; j < np; j++)
			add(w, m[i].name, p[j], m[i].flags);
}

/* the CPUs this process may run on */
static int ncpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set) < 1024 ? CPU_COUNT(&set) : 1024;
}

static void plan(void)
{
	static const struct mode conn[] = {
		{ "epoll", 0 }, { "uring", 0 }, { "uring-detour", 0 },
		{ "direct-chain", DIRECT }, { "direct-multishot", DIRECT },
		{ "uring-multishot", 0 },
	}, files[] = {
		{ "uring", 0 }, { "uring+reg", 0 }, { "direct", DIRECT },
		{ "direct+dirfd", NOFD | DIRECT },
	}, stat[] = {
		{ "stat-uring", 0 }, { "stat-dirfd", NOFD | DIRECT },
		{ "stat-open", NOFD | DIRECT },
	}, recv_multishot[] = {
		{ "direct-recv-multishot", DIRECT },
	};
	static const int depth[] = { 1, 8, 32 }, exch[] = { 1, 10, 100 };
	int threads[16], nt = 0;

	add_each("conn", conn, 6, depth, 3);
	add_each("keepalive", conn, 6, exch, 3);
	/*
	 * A measurement for nofd-httpd, not a mode of the tables (it has no
	 * twin that does the same requests): make profile and the smoke test
	 */
	if (job_spec || smoke)
		add_each("keepalive", recv_multishot, 1, exch, 3);
	add("files", "sys", 1, 0);
	add_each("files", files, 4, depth, 3);
	add("stat", "stat-sys", 1, 0);
	add_each("stat", stat, 3, depth, 3);
	/* the same on the guest's ext4 disk, its pages cached: not natively */
	guest_only = true;
	add("files-ext4", "sys", 1, 0);
	add_each("files-ext4", files, 4, depth, 3);
	add("stat-ext4", "stat-sys", 1, 0);
	add_each("stat-ext4", stat, 3, depth, 3);
	/* and cold: each file once after the caches are dropped */
	add("files-cold", "sys", 8, 0);
	add_each("files-cold", files, 4, depth + 1, 1);
	add("stat-cold", "stat-sys", 8, 0);
	add_each("stat-cold", stat, 3, depth + 1, 1);
	/*
	 * depth: STATX, OPENAT + CLOSE and RENAMEAT by syscall, forced to
	 * io-wq and as the kernel issues them, at 1, 8 and 32 in flight, on
	 * tmpfs and on the ext4 disk: the guest's (the series' inline issue
	 * against io-wq, as the handoff RFC measures)
	 */
	for (int i = 0; i < 2; i++) {
		static const struct mode ways[] = {
			{ "statx-name.wq", 0 }, { "statx-name.ring", 0 },
			{ "statx-slot.wq", NOFD }, { "statx-slot.ring", NOFD },
			{ "open-close.wq", 0 }, { "open-close.ring", 0 },
			{ "rename.wq", 0 }, { "rename.ring", 0 },
		};
		const char *w = i ? "depth-ext4" : "depth";

		add(w, "statx-name.sys", 1, 0);
		add(w, "statx-slot.sys", 1, 0);
		add(w, "open-close.sys", 1, 0);
		add(w, "rename.sys", 1, 0);
		add_each(w, ways, 8, depth, 3);
	}
	guest_only = false;
	add("walk", "sys", 0, 0);
	add("walk", "uring", 0, NOFD);
	add("walk", "direct", 0, NOFD | DIRECT);
	/* on ext4: read once before (0), and the caches dropped (1) */
	guest_only = true;
	for (int p = 0; p < 2; p++) {
		add("walk-ext4", "sys", p, 0);
		add("walk-ext4", "uring", p, NOFD);
		add("walk-ext4", "direct", p, NOFD | DIRECT);
	}
	guest_only = false;
	if (job_spec) {		/* make profile: a walk of ext4 */
		add("walk", "sys", 1, 0);
		add("walk", "uring", 1, NOFD);
		add("walk", "direct", 1, NOFD | DIRECT);
	}
	/*
	 * 1, 2 and 4 threads; natively also every doubling up to the
	 * machine's CPUs (a file costs what the shared fd table costs with
	 * many threads, which the 2-vCPU guest cannot show)
	 */
	for (int t = 1; t <= 4 || (native && t <= ncpus()); t *= 2)
		threads[nt++] = t;
	if (smoke)		/* the most threads only, as add_each() */
		threads[0] = threads[nt - 1], nt = 1;
	for (int i = 0; i < nt; i++) {
		add("thfiles", "sys", threads[i], 0);
		add_each("thfiles", files, 4, &threads[i], 1);
	}
	for (int i = 0; i < nt; i++)		/* the io_uring modes */
		add_each("thconn", conn + 1, 5, &threads[i], 1);
	add_each("conn-dt", conn + 1, 5, depth + 1, 2);
	add_each("files-dt", files, 4, depth + 1, 2);
	add_each("files-skip", files, 4, depth, 3);
	if (job_spec)		/* make profile: open + fstat + close */
		add_each("files-skip", stat + 2, 1, depth + 1, 2);
}

/* --only names workloads plan() has: an unknown one is an error */
static void check_only(void)
{
	char list[128];

	snprintf(list, sizeof(list), "%s", only ? only : "");
	for (char *w = strtok(list, ","); w; w = strtok(NULL, ",")) {
		int known = 0;

		for (int i = 0; i < nr_names; i++)
			known |= !strcmp(names[i], w);
		if (known)
			continue;
		fprintf(stderr, "bench-run: --only: no workload named '%s'; "
			"the workloads:", w);
		for (int i = 0; i < nr_names; i++)
			fprintf(stderr, " %s", names[i]);
		fputc('\n', stderr);
		exit(2);
	}
}

static void cost(int round)
{
	char *argv[] = { (char *)prog("fdcost"), NULL, "32", NULL };
	char count[24], line[256] = "";
	double install = -1, fget = -1, sock = -1, reg = -1;
	FILE *out;
	pid_t pid;

	argv[1] = num(count, n_cost);
	pid = spawn(argv, &out);
	if (fgets(line, sizeof(line), out))
		sscanf(line, "install=%lf fget=%lf sock=%lf register=%lf",
		       &install, &fget, &sock, &reg);
	fclose(out);
	finish(pid, "fdcost");
	frame_line(stdout, "bench.csv", "cost,%d,%.1f,%.1f,%.1f,%.1f", round,
		   install, fget, sock, reg);
}

/* The CPU per op of each job's measured rounds. */
#define MAX_ROUNDS	35
#define SE_TARGET	0.25	/* % of the mean */
static double per_op[MAX_JOBS][MAX_ROUNDS];
static int measured[MAX_JOBS];

/* Run job @i once, print its line, and keep its CPU per op. */
static void measure(int i, unsigned long div, int round)
{
	const struct job *j = &jobs[i];
	struct result r;

	run(j, div, 0, &r);
	frame_line(stdout, "bench.csv", "run,%s,%s,%d,%d,%lu,%.6f,%.6f,%lu,%d",
		   j->workload, j->mode, j->param, round, r.ops, r.cpu,
		   r.seconds, r.fdops, r.limit);
	/* --job: how much of the CPU time io-wq workers ran (profile/run.sh) */
	if (job_spec)
		frame_line(stdout, "job.csv", "job,%s-%s-%d,%lu,%.0f,%.0f",
			   j->workload, j->mode, j->param, r.ops, r.cpu * 1e9,
			   r.wq_cpu * 1e9);
	if (r.ops && measured[i] < MAX_ROUNDS)
		per_op[i][measured[i]++] = r.cpu / r.ops;
}

/* Whether job @i's mean is known to SE_TARGET % (its standard error). */
static int settled(int i)
{
	double sum = 0, sq = 0, mean, limit;
	int n = measured[i];

	if (n < 2)
		return 1;
	for (int k = 0; k < n; k++)
		sum += per_op[i][k];
	mean = sum / n;
	for (int k = 0; k < n; k++)
		sq += (per_op[i][k] - mean) * (per_op[i][k] - mean);
	limit = SE_TARGET / 100 * mean;
	return sq / (n - 1) / n <= limit * limit;
}

/*
 * A walk's tree, made afresh: on tmpfs, or @on_disk on a fresh ext4 disk,
 * written out and read once, so that the walks measured find its blocks
 * cached, as a tree read before would (walk-ext4,MODE,1 drops them).
 */
static void make_tree(int on_disk)
{
	char d[24], f[24], *t = on_disk ? disk_tree : tree;
	char *argv[] = { (char *)prog("dirwalk"), "make", t,
			 num(d, tree_dirs), num(f, tree_files), NULL };
	FILE *out;
	pid_t pid;

	make_work();
	snprintf(t, on_disk ? sizeof(disk_tree) : sizeof(tree), "%s/tree",
		 on_disk ? disk() : work);
	pid = spawn(argv, &out);
	fclose(out);
	finish(pid, "dirwalk make");
	if (on_disk) {
		sync();
		warm_tree(t);
	}
}

static int steps;

/*
 * "progress: N/M ...": the run of job @i, step N of M, starts. The guest's
 * goes to the host as it comes (vm/progress.sh shows it with the time
 * left); natively it goes to stderr, apart from the results.
 */
__attribute__((format(printf, 2, 3)))
static void progress(int i, const char *fmt, ...)
{
	static int step;
	char what[256];
	va_list ap;

	if (smoke)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	frame_progress(native ? stderr : stdout, ++step, steps, "%s %s %d, %s",
		       jobs[i].workload, jobs[i].mode, jobs[i].param, what);
}

/*
 * What the kernel says of the CPU's speculation bugs and their
 * mitigations, home as vulnerabilities.txt: a syscall costs what the
 * entry's mitigations cost, so a figure is read beside them.
 */
static void send_vulnerabilities(void)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512], value[256] = "";
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(value, sizeof(value), f))
			value[strcspn(value, "\n")] = 0;
		fclose(f);
		frame_line(stdout, "vulnerabilities.txt", "%s: %s",
			   de->d_name, value);
	}
	closedir(d);
}

static const char usage[] =
	"usage: bench-run [--quick|--smoke|--full] [--rounds N] [--native] "
	"[--no-syscount] [--only WORKLOAD,...]\n"
	"       bench-run --job WORKLOAD,MODE,PARAM --ops N\n"
	"make bench runs it in the guest (bench/run.sh).\n";

int main(int argc, char **argv)
{
	int rounds = 7, syscount = 1;
	unsigned long div = 1, traced_div = 5, ops = 0;
	struct result r;

	usage_help(argc, argv, usage);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			rounds = 1;
			div = 5;
			traced_div = 20;
			tree_dirs = 200;
			tree_files = 2000;
		} else if (!strcmp(argv[i], "--smoke")) {
			smoke = true;
			rounds = 1;
			div = 50;
			traced_div = 100;
			tree_dirs = 20;
			tree_files = 100;
			n_cost = 200;
			quiesce_us = 0;	/* nothing is measured */
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--native")) {
			native = 1;
		} else if (!strcmp(argv[i], "--no-syscount")) {
			syscount = 0;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--full")) {
			rounds = 1;	/* the full counts, once */
		} else if (!strcmp(argv[i], "--job") && i + 1 < argc) {
			job_spec = argv[++i];
		} else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
			ops = strtoul(argv[++i], NULL, 10);
		} else {
			usage_error(usage);
		}
	}
	if (job_spec) {
		if (!ops)
			die("--job needs --ops N", -EINVAL);
		n_conn = n_exch = n_files = n_thfiles = ops;
		tree_files = ops;
		tree_dirs = ops / 10 ? ops / 10 : 1;
		rounds = 1;
		syscount = 0;
	}
	snprintf(bin, sizeof(bin), "%s",
		 getenv("BENCH_BIN") ? getenv("BENCH_BIN") : "/bin");
	/* in the guest: the same memory layout in every run (never on a
	 * host: it is system-wide) */
	if (!native && in_nofd_guest()) {
		FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "w");

		if (f) {
			fputs("0\n", f);
			fclose(f);
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!native && !job_spec)
		send_vulnerabilities();
	plan();
	check_only();
	if (job_spec && nr_jobs != 1)
		die(job_spec, -ENOENT);
	/* the trees the walks need: tmpfs's, the ext4 disk's */
	for (int i = 0, made[2] = { 0, 0 }; i < nr_jobs; i++) {
		int on_disk = !strcmp(jobs[i].workload, "walk-ext4") ||
			      (!strcmp(jobs[i].workload, "walk") &&
			       jobs[i].param == 1);

		if (strncmp(jobs[i].workload, "walk", 4) || made[on_disk])
			continue;
		make_tree(on_disk);
		made[on_disk] = 1;
	}

	/*
	 * Warm up: every job once, short and not reported. The first io_uring
	 * runs of a boot cost several percent more than later ones (caches
	 * and pools filling), which would otherwise land in round 1.
	 */
	for (int i = 0; rounds > 1 && i < nr_jobs; i++)
		run(&jobs[i], 20, 0, &r);
	steps = nr_jobs * (rounds + syscount);
	for (int round = 1; round <= rounds; round++) {
		for (int i = 0; i < nr_jobs; i++) {
			progress(i, "round %d/%d", round, rounds);
			measure(i, div, round);
		}
		if (!job_spec)
			cost(round);
	}
	/*
	 * In the guest, jobs whose mean is not yet known to SE_TARGET get
	 * more rounds, interleaved among themselves, up to MAX_ROUNDS.
	 */
	for (int round = rounds + 1; !native && rounds > 2 &&
	     round <= MAX_ROUNDS; round++) {
		int more = 0;

		for (int i = 0; i < nr_jobs; i++) {
			if (settled(i))
				continue;
			if (!more && !smoke)
				printf("bench-run: round %d for the jobs whose "
				       "mean is not known to %.2f%% yet\n", round,
				       SE_TARGET);
			measure(i, div, round);
			more = 1;
		}
		if (!more)
			break;
	}
	for (int i = 0; syscount && i < nr_jobs; i++) {
		const struct job *j = &jobs[i];

		progress(i, "syscalls, under ptrace");
		run(j, div * traced_div, 1, &r);
		if (!r.syscalls) {
			fprintf(stderr, "bench-run: no syscalls counted for %s "
				"%s\n", j->workload, j->mode);
			failures++;
		}
		frame_line(stdout, "bench.csv", "sys,%s,%s,%d,%lu,%lu,%s",
			   j->workload, j->mode, j->param, r.ops, r.syscalls,
			   r.by_nr);
	}
	if (failures)
		fprintf(stderr, "bench-run: %d failures\n", failures);
	return failures ? 1 : 0;
}
