// SPDX-License-Identifier: MIT
/*
 * bench-run: the whole benchmark, in the guest. Runs every mode of the
 * three workloads, interleaved (round 1 of every mode, then round 2, ...)
 * so that drift hits all modes alike, then one more pass of each mode
 * under syscount to count its system calls. Prints CSV on stdout:
 *
 *   run,WORKLOAD,SETTING,MODE,THREADS,ROUND,OPS,CLIENT_OPS,SECONDS,CPU_S,FDOPS,NOFILE_LIMIT
 *   sys,WORKLOAD,SETTING,MODE,THREADS,OPS,SYSCALLS,BY_NR
 *
 * WORKLOAD conn (server modes a-e), threads (b and d with 1, 2, 4 server
 * threads), files; SETTING default or, for conn b-e also, dt
 * (SINGLE_ISSUER|DEFER_TASKRUN).
 * OPS are what the server (files: the program) completed, CPU_S its CPU
 * time, CLIENT_OPS what the load generator completed in SECONDS.
 *
 *   bench-run [--smoke] [--rounds N]     (programs from $BENCH_BIN or /bin)
 *
 * --smoke runs each mode once, briefly, and checks that it works: for the
 * smoke test in `make test`, which asserts nothing about speed.
 */
#include <sys/wait.h>

#include "bench.h"

struct job {
	const char *workload, *setting, *mode;
	int threads;
};

struct result {
	unsigned long ops, client_ops, fdops, syscalls;
	double seconds, cpu;
	int limit;
	char by_nr[1024];
};

static double conn_secs = 6, files_secs = 3, traced_secs = 1;
static char syscount[256], conn_server[256], conn_client[256], files[256];
static int port = 20000, failures;

/* Start @argv with its stdout on a pipe; returns the pid, *@out the pipe. */
static pid_t spawn(char *const argv[], FILE **out)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		die("pipe", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
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
		die("fdopen", errno);
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
			sscanf(tok, "syscalls=%lu", &r->syscalls);
			sscanf(tok, "by_nr=%1000s", r->by_nr);
		}
	}
	fclose(f);
}

static double finish(pid_t pid, const char *what)
{
	struct rusage ru;
	int status;

	if (wait4(pid, &status, 0, &ru) != pid)
		die("wait4", errno);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench-run: %s failed (status %#x)\n", what,
			status);
		failures++;
	}
	return cpu_seconds(&ru);
}

static void run_conn(const struct job *j, int traced, struct result *r)
{
	char threads[16], portstr[16], secs[16];
	char *server[8] = { 0 }, *client[] = {
		conn_client, portstr, secs, "32", NULL,
	};
	struct result cr = { 0 };
	char line[64] = "";
	FILE *sout, *cout;
	pid_t s, c;
	int n = 0;

	snprintf(threads, sizeof(threads), "%d", j->threads);
	snprintf(portstr, sizeof(portstr), "%d", port++);
	snprintf(secs, sizeof(secs), "%g", traced ? traced_secs : conn_secs);
	if (traced)
		server[n++] = syscount;
	server[n++] = conn_server;
	server[n++] = (char *)j->mode;
	server[n++] = threads;
	server[n++] = portstr;
	if (!strcmp(j->setting, "dt"))
		server[n++] = "dt";

	s = spawn(server, &sout);
	if (!fgets(line, sizeof(line), sout) || strcmp(line, "ready\n"))
		die("the server did not start", EIO);
	c = spawn(client, &cout);
	parse(cout, &cr);
	finish(c, "conn-client");
	kill(s, SIGTERM);
	parse(sout, r);
	r->cpu = finish(s, "conn-server");
	r->client_ops = cr.ops;
	r->seconds = cr.seconds;
}

static void run_files(const struct job *j, int traced, struct result *r)
{
	char secs[16];
	char *argv[6] = { 0 };
	FILE *out;
	pid_t pid;
	int n = 0;

	snprintf(secs, sizeof(secs), "%g", traced ? traced_secs / 2 : files_secs);
	if (traced)
		argv[n++] = syscount;
	argv[n++] = files;
	argv[n++] = (char *)j->mode;
	argv[n++] = secs;
	if (!strcmp(j->setting, "dt"))
		argv[n++] = "dt";
	pid = spawn(argv, &out);
	parse(out, r);
	finish(pid, "files");
	r->client_ops = r->ops;
}

static void run(const struct job *j, int traced, struct result *r)
{
	memset(r, 0, sizeof(*r));
	r->limit = -1;
	if (!strcmp(j->workload, "files"))
		run_files(j, traced, r);
	else
		run_conn(j, traced, r);
	if (!r->ops) {
		fprintf(stderr, "bench-run: %s %s %s x%d completed nothing\n",
			j->workload, j->setting, j->mode, j->threads);
		failures++;
	}
	/* the direct modes must have run with no fd-table operation */
	if (j->mode[0] == 'd' || !strcmp(j->mode, "e")) {
		if (r->fdops || r->limit < 0) {
			fprintf(stderr, "bench-run: %s %s made %lu fd-table "
				"operations (limit %d)\n", j->workload,
				j->mode, r->fdops, r->limit);
			failures++;
		}
	}
}

static int nr_jobs;
static struct job jobs[64];

static void add(const char *workload, const char *setting, const char *mode,
		int threads)
{
	jobs[nr_jobs++] = (struct job){ workload, setting, mode, threads };
}

static void plan(void)
{
	static const char *const conn_modes[] = { "b", "c", "d", "e" };
	static const char *const files_modes[] = {
		"sys", "uring", "uring+reg", "direct", "direct+dirfd",
	};
	static const char *const settings[] = { "default", "dt" };

	add("conn", "default", "a", 1);
	for (int s = 0; s < 2; s++)
		for (int m = 0; m < 4; m++)
			add("conn", settings[s], conn_modes[m], 1);
	for (int t = 1; t <= 4; t *= 2) {
		add("threads", "default", "b", t);
		add("threads", "default", "d", t);
	}
	for (int m = 0; m < 5; m++)
		add("files", "default", files_modes[m], 1);
}

/* The programs are in $BENCH_BIN, by default /bin (the guest's). */
static void find_programs(void)
{
	const char *bin = getenv("BENCH_BIN") ? getenv("BENCH_BIN") : "/bin";

	snprintf(syscount, sizeof(syscount), "%s/syscount", bin);
	snprintf(conn_server, sizeof(conn_server), "%s/conn-server", bin);
	snprintf(conn_client, sizeof(conn_client), "%s/conn-client", bin);
	snprintf(files, sizeof(files), "%s/files", bin);
}

int main(int argc, char **argv)
{
	int rounds = 5, smoke = 0;
	struct result r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke"))
			smoke = 1;
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
	}
	if (smoke) {
		rounds = 1;
		/* long enough for connections on the debug kernel */
		conn_secs = 1.5;
		files_secs = 0.3;
		traced_secs = 1.5;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	find_programs();
	plan();

	for (int round = 1; round <= rounds; round++) {
		for (int i = 0; i < nr_jobs; i++) {
			const struct job *j = &jobs[i];

			run(j, 0, &r);
			printf("run,%s,%s,%s,%d,%d,%lu,%lu,%.3f,%.4f,%lu,%d\n",
			       j->workload, j->setting, j->mode, j->threads,
			       round, r.ops, r.client_ops, r.seconds, r.cpu,
			       r.fdops, r.limit);
		}
	}
	for (int i = 0; i < nr_jobs; i++) {
		const struct job *j = &jobs[i];

		run(j, 1, &r);
		if (!r.syscalls) {
			fprintf(stderr, "bench-run: no syscalls counted for %s "
				"%s\n", j->workload, j->mode);
			failures++;
		}
		printf("sys,%s,%s,%s,%d,%lu,%lu,%s\n", j->workload, j->setting,
		       j->mode, j->threads, r.ops, r.syscalls, r.by_nr);
	}
	if (failures)
		fprintf(stderr, "bench-run: %d failures\n", failures);
	return failures ? 1 : 0;
}
