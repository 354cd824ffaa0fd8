// SPDX-License-Identifier: MIT
/*
 * bench-report: turn bench-run's CSV into the tables of docs/benchmarks.md
 * and a chart. Runs on the host.
 *
 *   bench-report RESULTS.csv TABLES.md CHART.svg
 *
 * Every figure is min / median / max over the rounds. Ratios are paired:
 * mode X's CPU per operation over the baseline's in the same round (the
 * same setting and thread count), then min / median / max of those.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUPS	64
#define MAX_ROUNDS	32

struct group {
	char workload[16], setting[16], mode[16];
	int threads, n;
	double rate[MAX_ROUNDS];	/* client ops per second */
	double cpu[MAX_ROUNDS];		/* server CPU us per op */
	int round[MAX_ROUNDS];
	double fdops;			/* per op, last round */
	int limit;
	double syscalls;		/* per op, traced pass; -1 if none */
	unsigned long traced_ops;	/* ops of the traced pass */
	char by_nr[1024];		/* its syscalls: NR:COUNT,... */
};

static struct group groups[MAX_GROUPS];
static int nr_groups;

static struct group *find(const char *w, const char *s, const char *m, int t)
{
	for (int i = 0; i < nr_groups; i++)
		if (!strcmp(groups[i].workload, w) &&
		    !strcmp(groups[i].setting, s) &&
		    !strcmp(groups[i].mode, m) && groups[i].threads == t)
			return &groups[i];
	return NULL;
}

static struct group *get(const char *w, const char *s, const char *m, int t)
{
	struct group *g = find(w, s, m, t);

	if (g)
		return g;
	if (nr_groups == MAX_GROUPS) {
		fprintf(stderr, "bench-report: too many groups\n");
		exit(1);
	}
	g = &groups[nr_groups++];
	snprintf(g->workload, sizeof(g->workload), "%s", w);
	snprintf(g->setting, sizeof(g->setting), "%s", s);
	snprintf(g->mode, sizeof(g->mode), "%s", m);
	g->threads = t;
	g->syscalls = -1;
	return g;
}

static void load(const char *path)
{
	char line[2048], w[16], s[16], m[16], by_nr[1024];
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long ops, cops, fdops, sys;
		double secs, cpu;
		int t, round, limit;
		struct group *g;

		line[strcspn(line, "\r\n")] = 0;
		if (sscanf(line, "run,%15[^,],%15[^,],%15[^,],%d,%d,%lu,%lu,%lf,"
			   "%lf,%lu,%d", w, s, m, &t, &round, &ops, &cops,
			   &secs, &cpu, &fdops, &limit) == 11 && ops && secs > 0) {
			g = get(w, s, m, t);
			if (g->n == MAX_ROUNDS)
				continue;
			g->rate[g->n] = cops / secs;
			g->cpu[g->n] = cpu * 1e6 / ops;
			g->round[g->n++] = round;
			g->fdops = (double)fdops / ops;
			g->limit = limit;
		} else if (sscanf(line, "sys,%15[^,],%15[^,],%15[^,],%d,%lu,%lu,"
				  "%1023s", w, s, m, &t, &ops, &sys,
				  by_nr) >= 6 && ops) {
			g = get(w, s, m, t);
			g->syscalls = (double)sys / ops;
			g->traced_ops = ops;
			snprintf(g->by_nr, sizeof(g->by_nr), "%s", by_nr);
		}
	}
	fclose(f);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* min, median, max of @v[0..@n) */
static void stats(const double *v, int n, double out[3])
{
	double s[MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp);
	out[0] = s[0];
	out[1] = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	out[2] = s[n - 1];
}

/* Paired ratios of @g's CPU per op over @base's, round by round. */
static int ratio(const struct group *g, const struct group *base,
		 double out[3])
{
	double r[MAX_ROUNDS];
	int n = 0;

	if (!base)
		return 0;
	for (int i = 0; i < g->n; i++)
		for (int j = 0; j < base->n; j++)
			if (g->round[i] == base->round[j])
				r[n++] = g->cpu[i] / base->cpu[j];
	if (!n)
		return 0;
	stats(r, n, out);
	return 1;
}

static void cell3(FILE *f, const double v[3], const char *fmt)
{
	fprintf(f, " | ");
	fprintf(f, fmt, v[1]);
	fprintf(f, " (");
	fprintf(f, fmt, v[0]);
	fprintf(f, "-");
	fprintf(f, fmt, v[2]);
	fprintf(f, ")");
}

static void cell_ratio(FILE *f, const struct group *g, const struct group *b)
{
	double r[3];

	if (g == b)
		fprintf(f, " | 1");
	else if (ratio(g, b, r))
		fprintf(f, " | %.2f [%.2f..%.2f]", r[1], r[0], r[2]);
	else
		fprintf(f, " | -");
}

/* @g's syscalls per op by name, those of this benchmark (x86_64). */
static void breakdown(FILE *f, const struct group *g)
{
	static const struct { int nr; const char *name; } names[] = {
		{ 0, "read" }, { 3, "close" }, { 44, "sendto" },
		{ 45, "recvfrom" }, { 232, "epoll_wait" }, { 233, "epoll_ctl" },
		{ 257, "openat" }, { 288, "accept4" }, { 426, "io_uring_enter" },
		{ 427, "io_uring_register" },
	};
	char buf[1024];
	int first = 1;

	snprintf(buf, sizeof(buf), "%s", g->by_nr);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		int nr;
		unsigned long count;
		const char *name = NULL;

		if (sscanf(tok, "%d:%lu", &nr, &count) != 2)
			continue;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (names[i].nr == nr)
				name = names[i].name;
		if (!name || (double)count / g->traced_ops < 0.05)
			continue;
		fprintf(f, "%s%s %.2f", first ? "" : ", ", name,
			(double)count / g->traced_ops);
		first = 0;
	}
}

static void table(FILE *f, const char *workload, const char *setting,
		  const char *b1, const char *b2, const char *unit)
{
	fprintf(f, "| mode | threads | %s/s | CPU us/%s | CPU vs %s | CPU vs %s "
		"| syscalls/%s | fd-table ops/%s | RLIMIT_NOFILE lock |\n",
		unit, unit, b1, b2 ? b2 : "-", unit, unit);
	fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < nr_groups; i++) {
		struct group *g = &groups[i];
		double v[3];

		if (strcmp(g->workload, workload) || strcmp(g->setting, setting) ||
		    !g->n)
			continue;
		fprintf(f, "| %s | %d", g->mode, g->threads);
		stats(g->rate, g->n, v);
		cell3(f, v, "%.0f");
		stats(g->cpu, g->n, v);
		cell3(f, v, "%.1f");
		cell_ratio(f, g, find(workload, setting, b1, g->threads));
		if (b2)
			cell_ratio(f, g, find(workload, setting, b2, g->threads));
		else
			fprintf(f, " | -");
		if (g->syscalls >= 0) {
			fprintf(f, " | %.2f (", g->syscalls);
			breakdown(f, g);
			fprintf(f, ")");
		} else {
			fprintf(f, " | -");
		}
		fprintf(f, " | %.2f | %s |\n", g->fdops,
			g->limit >= 0 ? "yes" : "no");
	}
	fprintf(f, "\n");
}

/*
 * A horizontal bar per group: median CPU per operation, with a line from
 * the min to the max. One panel per workload and setting.
 */
static int chart(const char *path)
{
	const int left = 190, width = 420, bar = 14, gap = 6;
	FILE *f = fopen(path, "w");
	int y = 30, rows = 0;
	double v[3];

	if (!f) {
		perror(path);
		return 1;
	}
	for (int i = 0; i < nr_groups; i++)
		rows += groups[i].n > 0;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n",
		left + width + 90, 40 + rows * (bar + gap) + 5 * 30);
	fprintf(f, "<text x=\"10\" y=\"16\" font-size=\"13\">Server CPU time "
		"per operation, median (line: min-max), QEMU TCG guest</text>\n");
	for (int i = 0; i < nr_groups; i++) {
		struct group *g = &groups[i];
		double max = 0;

		if (!g->n)
			continue;
		if (!i || strcmp(g->workload, groups[i - 1].workload) ||
		    strcmp(g->setting, groups[i - 1].setting)) {
			y += 12;
			fprintf(f, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">"
				"%s, %s</text>\n", y, g->workload, g->setting);
			y += 8;
		}
		/* the scale: the largest max of this panel */
		for (int j = 0; j < nr_groups; j++)
			if (!strcmp(groups[j].workload, g->workload) &&
			    !strcmp(groups[j].setting, g->setting) &&
			    groups[j].n) {
				stats(groups[j].cpu, groups[j].n, v);
				max = v[2] > max ? v[2] : max;
			}
		stats(g->cpu, g->n, v);
		fprintf(f, "<text x=\"10\" y=\"%d\">%s x%d</text>\n",
			y + bar - 3, g->mode, g->threads);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
			"height=\"%d\" fill=\"%s\"/>\n", left, y,
			width * v[1] / max, bar,
			g->limit >= 0 ? "#3a7" : "#888");
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
			"stroke=\"black\"/>\n", left + width * v[0] / max,
			left + width * v[2] / max, y + bar / 2, y + bar / 2);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.1f us</text>\n",
			left + width * v[2] / max + 5, y + bar - 3, v[1]);
		y += bar + gap;
	}
	fprintf(f, "<text x=\"10\" y=\"%d\">green: ran with no fd-table "
		"operation possible (RLIMIT_NOFILE locked)</text>\n", y + 14);
	fprintf(f, "</svg>\n");
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	FILE *md;

	if (argc != 4) {
		fprintf(stderr, "usage: bench-report RESULTS.csv TABLES.md "
			"CHART.svg\n");
		return 2;
	}
	load(argv[1]);
	md = fopen(argv[2], "w");
	if (!md) {
		perror(argv[2]);
		return 1;
	}
	fprintf(md, "#### Connections, default ring flags\n\n");
	table(md, "conn", "default", "b", "c", "conn");
	fprintf(md, "#### Connections, SINGLE_ISSUER | DEFER_TASKRUN\n\n");
	table(md, "conn", "dt", "b", "c", "conn");
	fprintf(md, "#### Shared fd table: 1, 2, 4 server threads\n\n");
	table(md, "threads", "default", "b", NULL, "conn");
	fprintf(md, "#### Files, default ring flags\n\n");
	table(md, "files", "default", "uring", "uring+reg", "file");
	fclose(md);
	return chart(argv[3]);
}
