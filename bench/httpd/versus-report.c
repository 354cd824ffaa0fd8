// SPDX-License-Identifier: MIT
/*
 * versus-report: the tables and the chart of nofd-httpd against nginx,
 * made on the host from the rows versus (bench/httpd/versus.c) sends home
 * in its file versus.csv:
 *
 *   versus,ROUNDS,DURATION,WHERE          (WHERE: guest or native)
 *   run,SERVER,LOAD,ROUND,REQUESTS,CPU_NS,RPS,P50_US,P99_US,FDS,ERRORS
 *   syscalls,SERVER,LOAD,STOPS,REQUESTS
 *
 * one run row per load a server was measured under in a round (the
 * requests wrk completed, the server's CPU time over them, wrk's
 * requests/s and latencies, the most descriptors seen, wrk's errors), one
 * syscalls row per load of its ptrace run (syscall stops, two per call).
 * Servers and loads are in the order they first come.
 *
 *   versus-report VERSUS.csv [OUTDIR]
 *
 * prints the table: per server and load the means over the rounds of
 * requests/s, p50 and p99 latency, server CPU per request (each with its
 * spread, lib/stats.h), syscalls per request and the most descriptors
 * held; natively, with no syscall count, then the ratios of nofd-httpd's
 * CPU per request over each nginx's, taken round by round. With OUTDIR it
 * writes table.md, results.csv (a row per round), results.json and
 * chart.svg (CPU per request over nginx's) there: make demo's build/demo.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "svg.h"
#include "usage.h"

#define MAX_SERVERS	16
#define MAX_LOADS	8
#define MAX_ROUNDS	5
#define MAX_NAME	64

struct result {
	double rps[MAX_ROUNDS], p50[MAX_ROUNDS], p99[MAX_ROUNDS];
	double cpu[MAX_ROUNDS];		/* server CPU ns per request */
	double syscalls;		/* per request; -1: none completed */
	int fds;			/* most seen */
	long errors;
	unsigned int have;		/* the rounds read, a bit each */
	bool have_syscalls;
};

static char server[MAX_SERVERS][MAX_NAME], load[MAX_LOADS][MAX_NAME];
static int nserv, nloads, rounds;
static char duration[32];
static bool native;
static struct result results[MAX_SERVERS][MAX_LOADS];

/* The nginx the chart divides by, and the two the native ratios do */
#define NGINX		"nginx"
#define NGINX_OFC	"nginx open_file_cache"
#define NOFD		"nofd-httpd"

/* @name's index among the @n @names, or -1 */
static int find(char (*names)[MAX_NAME], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

/* @name's index in @names, added if it is new; -1 if there is no room */
static int index_of(char (*names)[MAX_NAME], int *n, int max,
		    const char *name)
{
	int i = find(names, *n, name);

	if (i >= 0)
		return i;
	if (*n == max || strlen(name) >= MAX_NAME)
		return -1;
	strcpy(names[*n], name);
	return (*n)++;
}

static int server_named(const char *name)
{
	return find(server, nserv, name);
}

/* Split @line at its commas into at most @max fields; their count. */
static int fields(char *line, char **f, int max)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		f[n++] = line;
		line = strchr(line, ',');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

/* The result of the row's server and load (fields 1 and 2), or NULL */
static struct result *result_of(char **f)
{
	int s = index_of(server, &nserv, MAX_SERVERS, f[1]);
	int l = index_of(load, &nloads, MAX_LOADS, f[2]);

	return s < 0 || l < 0 ? NULL : &results[s][l];
}

static bool run_row(char **f)
{
	struct result *r = result_of(f);
	int i = atoi(f[3]) - 1;
	long requests = atol(f[4]);
	double cpu_ns = strtod(f[5], NULL);

	if (!r || i < 0 || i >= rounds || requests <= 0 || cpu_ns <= 0 ||
	    r->have & 1u << i)
		return false;
	r->have |= 1u << i;
	r->cpu[i] = cpu_ns / requests;
	r->rps[i] = strtod(f[6], NULL);
	r->p50[i] = strtod(f[7], NULL);
	r->p99[i] = strtod(f[8], NULL);
	if (atoi(f[9]) > r->fds)
		r->fds = atoi(f[9]);
	r->errors += atol(f[10]);
	return true;
}

static bool syscalls_row(char **f)
{
	struct result *r = result_of(f);
	long requests = atol(f[4]);

	if (!r || r->have_syscalls)
		return false;
	r->have_syscalls = true;
	r->syscalls = requests ? strtoul(f[3], NULL, 10) / 2.0 / requests : -1;
	return true;
}

/*
 * Whether every server was measured under every load in every round, and
 * in the guest counted under each: a run cut short gives no table.
 */
static bool complete(void)
{
	for (int s = 0; s < nserv; s++)
		for (int l = 0; l < nloads; l++) {
			const struct result *r = &results[s][l];

			if (r->have == (1u << rounds) - 1 &&
			    (native || r->have_syscalls))
				continue;
			fprintf(stderr, "versus-report: %s, %s: %s missing\n",
				server[s], load[l], r->have != (1u << rounds) - 1 ?
				"a round is" : "the syscall count is");
			return false;
		}
	return true;
}

/* Read @path; false, having said why, if it holds no complete run. */
static bool load_rows(const char *path)
{
	char line[1024], *f[12];
	int nr = 0, bad = 0;
	FILE *in = fopen(path, "r");

	if (!in) {
		perror(path);
		return false;
	}
	while (fgets(line, sizeof(line), in)) {
		int n = fields(line, f, 12);

		if (n == 4 && !strcmp(f[0], "versus") && !rounds) {
			rounds = atoi(f[1]);
			if (rounds < 1 || rounds > MAX_ROUNDS)
				break;
			snprintf(duration, sizeof(duration), "%s", f[2]);
			native = !strcmp(f[3], "native");
		} else if (n == 11 && !strcmp(f[0], "run") && rounds) {
			bad += !run_row(f);
		} else if (n == 5 && !strcmp(f[0], "syscalls") && rounds) {
			bad += !syscalls_row(f);
		} else {
			bad++;
		}
		nr++;
	}
	fclose(in);
	if (rounds < 1 || rounds > MAX_ROUNDS || !nserv || bad) {
		fprintf(stderr, "versus-report: %s: %d rows, %d of them malformed "
			"or repeated, %d rounds (1 to %d)\n", path, nr, bad,
			rounds, MAX_ROUNDS);
		return false;
	}
	return complete();
}

static double mean(const double *v)
{
	return stats_mean(v, rounds);
}

static double spread(const double *v)
{
	return stats_spread(v, rounds, mean(v));
}

static void print_table(FILE *f)
{
	fprintf(f, "| server | load | requests/s | p50 µs | p99 µs | "
		"server CPU µs/request | syscalls/request | fds at peak |\n"
		"|---|---|--:|--:|--:|--:|--:|--:|\n");
	for (int l = 0; l < nloads; l++)
		for (int s = 0; s < nserv; s++) {
			struct result *r = &results[s][l];
			char sys[16] = "-";	/* natively: not counted */

			if (!native)
				snprintf(sys, sizeof(sys), "%.2f", r->syscalls);
			fprintf(f, "| %s | %s | %.0f (%.1f%%) | %.0f | %.0f | "
				"%.2f (%.1f%%) | %s | %d |\n", server[s],
				load[l], mean(r->rps), spread(r->rps),
				mean(r->p50), mean(r->p99), mean(r->cpu) / 1e3,
				spread(r->cpu), sys, r->fds);
		}
}

static void print_csv(FILE *f)
{
	fprintf(f, "server,load,round,requests_per_s,p50_us,p99_us,"
		"cpu_ns_per_request,syscalls_per_request,fds_peak,errors\n");
	for (int s = 0; s < nserv; s++)
		for (int l = 0; l < nloads; l++)
			for (int i = 0; i < rounds; i++) {
				struct result *r = &results[s][l];

				fprintf(f, "%s,%s,%d,%.1f,%.1f,%.1f,%.0f,%.2f,"
					"%d,%ld\n", server[s], load[l], i + 1,
					r->rps[i], r->p50[i], r->p99[i],
					r->cpu[i], r->syscalls, r->fds,
					r->errors);
			}
}

static void print_json(FILE *f)
{
	fprintf(f, "{\"rounds\": %d, \"duration\": \"%s\", \"clock\": "
		"\"%s\", \"results\": [\n", rounds, duration, native ?
		"CPU time" : "-icount shift=0,sleep=off");
	for (int s = 0; s < nserv; s++)
		for (int l = 0; l < nloads; l++) {
			struct result *r = &results[s][l];

			fprintf(f, "  {\"server\": \"%s\", \"load\": \"%s\", "
				"\"requests_per_s\": %.1f, "
				"\"requests_per_s_spread_pct\": %.2f, "
				"\"p50_us\": %.1f, \"p99_us\": %.1f, "
				"\"cpu_ns_per_request\": %.0f, "
				"\"cpu_spread_pct\": %.2f, "
				"\"syscalls_per_request\": %.2f, "
				"\"fds_peak\": %d, \"errors\": %ld}%s\n",
				server[s], load[l], mean(r->rps),
				spread(r->rps), mean(r->p50), mean(r->p99),
				mean(r->cpu), spread(r->cpu), r->syscalls,
				r->fds, r->errors,
				s == nserv - 1 && l == nloads - 1 ? "" : ",");
		}
	fprintf(f, "]}\n");
}

/* server CPU per request, each load's bars relative to nginx's */
static void print_svg(FILE *f)
{
	static const char *const colors[] = {
		"#1f77b4", "#6baed6", "#d62728", "#ff9896", "#9ecae1",
		"#c6dbef", "#deebf7", "#08519c", "#3182bd",
	};
	int w = 760, bar = 22, gap = 30, top = 40, ref = server_named(NGINX);
	int h = top + nloads * (nserv * bar + gap) + 20;
	double max = 0;

	for (int s = 0; s < nserv; s++)
		for (int l = 0; l < nloads; l++) {
			double v = mean(results[s][l].cpu) /
				   mean(results[ref][l].cpu);

			if (v > max)
				max = v;
		}
	svg_begin(f, w, h);
	svg_text(f, 10, 20, " font-size='14'", "Server CPU per request, "
		 "relative to nginx (lower is better; -icount instructions)");
	for (int l = 0; l < nloads; l++) {
		int y0 = top + l * (nserv * bar + gap);

		svg_text(f, 10, y0 + 8, " font-weight='bold'", "%s", load[l]);
		for (int s = 0; s < nserv; s++) {
			double cpu = mean(results[s][l].cpu);
			double v = cpu / mean(results[ref][l].cpu);
			int y = y0 + 12 + s * bar, len = v / max * 380;

			svg_text(f, 10, y + 14, "", "%s", server[s]);
			svg_rect(f, 200, y, len, bar - 4, colors[s % 9]);
			svg_text(f, 205 + len, y + 14, "", "%.2fx (%.1f µs)", v,
				 cpu / 1e3);
		}
	}
	svg_end(f);
}

/*
 * Natively: server CPU per request of nofd-httpd over each nginx's, round
 * by round (the two measured one after the other), for each load: the
 * median of the rounds' ratios and their range. On a shared machine the
 * CPU clocks are time, not instructions: a ratio taken within a round
 * cancels what the machine did to both.
 */
static void print_ratios(FILE *f)
{
	int nofd = server_named(NOFD);
	int ref[2] = { server_named(NGINX), server_named(NGINX_OFC) };

	fprintf(f, "| load | nofd-httpd / nginx | nofd-httpd / nginx "
		"open_file_cache |\n|---|--:|--:|\n");
	for (int l = 0; l < nloads; l++) {
		fprintf(f, "| %s", load[l]);
		for (int n = 0; n < 2; n++) {
			double v[MAX_ROUNDS], lo, hi;

			for (int i = 0; i < rounds; i++)
				v[i] = results[nofd][l].cpu[i] /
				       results[ref[n]][l].cpu[i];
			stats_range(v, rounds, &lo, &hi);
			fprintf(f, " | %.2fx (%.2f-%.2f)",
				stats_median(v, rounds), lo, hi);
		}
		fprintf(f, " |\n");
	}
}

/* What @print writes, into DIR/@name; false if it cannot be written */
static bool write_file(const char *dir, const char *name,
		       void (*print)(FILE *))
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return false;
	}
	print(f);
	return !fclose(f);
}

static const char usage[] =
	"usage: versus-report VERSUS.csv [OUTDIR]\n"
	"make demo's table (and with OUTDIR its files) from the rows versus\n"
	"sent home.\n";

int main(int argc, char **argv)
{
	const char *dir = argc == 3 ? argv[2] : NULL;

	usage_help(argc, argv, usage);
	if (argc < 2 || argc > 3 || argv[1][0] == '-')
		usage_error(usage);
	if (!load_rows(argv[1]))
		return 1;
	print_table(stdout);
	if (native) {
		if (server_named(NOFD) < 0 || server_named(NGINX) < 0 ||
		    server_named(NGINX_OFC) < 0) {
			fprintf(stderr, "versus-report: no ratios without "
				"nofd-httpd and both nginx\n");
			return 1;
		}
		printf("\nserver CPU per request, nofd-httpd over nginx, the "
		       "median of the rounds' ratios (their range):\n\n");
		print_ratios(stdout);
	}
	if (!dir)
		return 0;
	if (!write_file(dir, "table.md", print_table) ||
	    !write_file(dir, "results.csv", print_csv) ||
	    !write_file(dir, "results.json", print_json))
		return 1;
	if (server_named(NGINX) < 0) {
		printf("versus-report: no chart: nginx was not measured\n");
		return 0;
	}
	return write_file(dir, "chart.svg", print_svg) ? 0 : 1;
}
