// SPDX-License-Identifier: MIT
/*
 * bench-report: turn bench-run's CSV into the tables of docs/benchmarks.md
 * and one chart per workload. Runs on the host.
 *
 *   bench-report GUEST.csv NATIVE.csv OUTDIR
 *   bench-report --spread OUT.md RUN.csv...
 *
 * writes OUTDIR/tables.md and OUTDIR/<workload>.svg. NATIVE.csv may be
 * empty. Every figure is CPU per operation: the mean over the rounds (the
 * median for native runs), with its spread (lib/stats.h). "vs best"
 * divides by the cheapest mode at the same parameter that holds regular
 * descriptors (epoll, sys, stat-sys, stat-uring and the uring* modes; the
 * others, direct*, stat-dirfd and stat-open, hold direct ones). The
 * ceiling is what the regular-fd io_uring mode spends on descriptor work
 * per operation, from fdcost: fd installs and removals
 * times `install`, requests on a regular fd times `fget` (files) or `sock`
 * (sockets).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "svg.h"
#include "usage.h"

#define MAX_CELLS	256
#define MAX_ROUNDS	40

struct cell {
	char workload[16], mode[24];
	int param, n;
	int by_median;			/* native: median, not mean */
	double us[MAX_ROUNDS];		/* CPU us per op */
	double rate[MAX_ROUNDS];	/* ops per (guest) second */
	double fdops;			/* per op */
	double syscalls;		/* per op, -1 if not counted */
};

struct data {
	struct cell cells[MAX_CELLS];
	int nr;
	double install[MAX_ROUNDS], fget[MAX_ROUNDS], sock[MAX_ROUNDS];
	double reg[MAX_ROUNDS];
	int costs;
};

static struct data guest, native;

static const struct workload {
	const char *name, *title, *param, *unit, *regular;
} workloads[] = {
	{ "conn", "Connections: accept, greet, receive a line, close",
	  "connections in flight", "connection", "uring" },
	{ "keepalive", "Keep-alive: R exchanges per connection, 8 in flight",
	  "exchanges per connection (R)", "exchange", "uring" },
	{ "files", "Files: open, read 4 KiB, close",
	  "files in flight", "file", "uring" },
	{ "stat", "Stat: STATX by name, or open + fstat + close",
	  "requests in flight", "file", "stat-uring" },
	{ "files-ext4", "Files on ext4 (the guest's disk, cached): open, "
	  "read 4 KiB, close", "files in flight", "file", "uring" },
	{ "stat-ext4", "Stat on ext4 (the guest's disk, cached): STATX by "
	  "name, or open + fstat + close", "requests in flight", "file",
	  "stat-uring" },
	{ "files-cold", "Files on ext4, caches dropped: each file opened, "
	  "read and closed once", "files in flight", "file", "uring" },
	{ "stat-cold", "Stat on ext4, caches dropped: each file once",
	  "requests in flight", "file", "stat-uring" },
	{ "walk", "Directory walk: stat every entry of 2,000 directories",
	  "-", "entry", "uring" },
	{ "walk-ext4", "Directory walk on ext4 (the guest's disk): read once "
	  "before (0), or the caches dropped before each walk (1)",
	  "caches dropped", "entry", "uring" },
	{ "thfiles", "Threads: files with T threads, one ring each, 8 in flight",
	  "threads (T)", "file", "uring" },
	{ "thconn", "Threads: connections with T server threads",
	  "threads (T)", "connection", "uring" },
	{ "conn-dt", "Connections, rings with SINGLE_ISSUER | DEFER_TASKRUN",
	  "connections in flight", "connection", "uring" },
	{ "files-dt", "Files, rings with SINGLE_ISSUER | DEFER_TASKRUN",
	  "files in flight", "file", "uring" },
	{ "files-skip", "Files, one CQE per chain (IOSQE_CQE_SKIP_SUCCESS)",
	  "files in flight", "file", "uring" },
};

static int is_direct(const char *mode)
{
	return !strncmp(mode, "direct", 6) || !strcmp(mode, "stat-dirfd") ||
	       !strcmp(mode, "stat-open");
}

/* The modes that use no io_uring: epoll and plain syscalls. */
static int is_syscall(const char *mode)
{
	return !strcmp(mode, "epoll") || !strcmp(mode, "sys") ||
	       !strcmp(mode, "stat-sys");
}

static struct cell *cell(struct data *d, const char *w, const char *m, int p)
{
	for (int i = 0; i < d->nr; i++)
		if (!strcmp(d->cells[i].workload, w) &&
		    !strcmp(d->cells[i].mode, m) && d->cells[i].param == p)
			return &d->cells[i];
	return NULL;
}

static struct cell *get(struct data *d, const char *w, const char *m, int p)
{
	struct cell *c = cell(d, w, m, p);

	if (c)
		return c;
	if (d->nr == MAX_CELLS) {
		fprintf(stderr, "bench-report: too many cells\n");
		exit(1);
	}
	c = &d->cells[d->nr++];
	snprintf(c->workload, sizeof(c->workload), "%s", w);
	snprintf(c->mode, sizeof(c->mode), "%s", m);
	c->param = p;
	c->syscalls = -1;
	return c;
}

/* The rows of @path into @d; false if it cannot be read (not measured) */
static bool load(const char *path, struct data *d, int by_median)
{
	char line[4096], w[16], m[24];
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long ops, fdops, sys;
		double cpu, secs, a, b, c, e;
		int p, round, limit;

		if (sscanf(line, "run,%15[^,],%23[^,],%d,%d,%lu,%lf,%lf,%lu,%d",
			   w, m, &p, &round, &ops, &cpu, &secs, &fdops,
			   &limit) == 9 && ops) {
			struct cell *x = get(d, w, m, p);

			if (x->n < MAX_ROUNDS) {
				x->rate[x->n] = secs > 0 ? ops / secs : NAN;
				x->us[x->n++] = cpu * 1e6 / ops;
			}
			x->by_median = by_median;
			x->fdops = (double)fdops / ops;
		} else if (sscanf(line, "sys,%15[^,],%23[^,],%d,%lu,%lu", w, m,
				  &p, &ops, &sys) == 5 && ops) {
			get(d, w, m, p)->syscalls = (double)sys / ops;
		} else if (sscanf(line, "cost,%d,%lf,%lf,%lf,%lf", &round, &a,
				  &b, &c, &e) == 5 && d->costs < MAX_ROUNDS) {
			d->install[d->costs] = a;
			d->fget[d->costs] = b;
			d->sock[d->costs] = c;
			d->reg[d->costs++] = e;
		}
	}
	fclose(f);
	return true;
}

/*
 * A cell's figure: the mean over its rounds, or for native cells, whose
 * CPU time has outliers of several times the typical round, the median.
 */
static double figure(const struct cell *c)
{
	return c->by_median ? stats_median(c->us, c->n) :
			      stats_mean(c->us, c->n);
}

static double spread(const struct cell *c)
{
	return stats_spread(c->us, c->n, figure(c));
}

/* The parameters and modes of workload @w, in first-seen order. */
static int params(const struct data *d, const char *w, int *p)
{
	int n = 0;

	for (int i = 0; i < d->nr; i++) {
		int seen = 0;

		if (strcmp(d->cells[i].workload, w))
			continue;
		for (int j = 0; j < n; j++)
			seen |= p[j] == d->cells[i].param;
		if (!seen)
			p[n++] = d->cells[i].param;
	}
	return n;
}

static int modes(const struct data *d, const char *w, const char **m)
{
	int n = 0;

	for (int i = 0; i < d->nr; i++) {
		int seen = 0;

		if (strcmp(d->cells[i].workload, w))
			continue;
		for (int j = 0; j < n; j++)
			seen |= !strcmp(m[j], d->cells[i].mode);
		if (!seen)
			m[n++] = d->cells[i].mode;
	}
	return n;
}

/* The cheapest mode without direct descriptors at @p, its mean. */
static double best_regular(struct data *d, const char *w, int p)
{
	double best = NAN;

	for (int i = 0; i < d->nr; i++) {
		struct cell *c = &d->cells[i];
		double v = figure(c);

		if (!strcmp(c->workload, w) && c->param == p &&
		    !is_direct(c->mode) && (isnan(best) || v < best))
			best = v;
	}
	return best;
}

/* The regular-fd mode that does what direct mode @m does, op for op. */
static const char *twin(const struct workload *wl, const char *m)
{
	if (!strcmp(m, "direct-multishot"))
		return "uring-multishot";
	return wl->regular;
}

/*
 * The ceiling, in us per operation: the descriptor work of the regular-fd
 * io_uring mode. Connections: one fd installed and removed, and two
 * requests (SEND, RECV) per exchange on it (keep-alive: per exchange, the
 * install/remove shared by the R exchanges); files: one install/remove and
 * a READ; stat: the dirfd of one STATX; walk: per entry the dirfd of its
 * STATX, and per directory (11 entries) an install/remove and a GETDENTS.
 */
static double ceiling(struct data *d, const char *w, int p)
{
	double in = stats_median(d->install, d->costs) / 1e3;
	double fg = stats_median(d->fget, d->costs) / 1e3;
	double so = stats_median(d->sock, d->costs) / 1e3;

	if (!strncmp(w, "conn", 4) || !strcmp(w, "thconn"))
		return in + 2 * so;
	if (!strcmp(w, "keepalive"))
		return (in + 2 * p * so) / p;
	if (!strncmp(w, "files", 5) || !strcmp(w, "thfiles"))
		return in + fg;
	if (!strncmp(w, "stat", 4))
		return fg;
	return fg + (in + fg) / 11;
}

static void table(FILE *out, struct data *d, const struct workload *wl,
		  int with_ceiling)
{
	const char *m[32];
	int p[16], np = params(d, wl->name, p), nm = modes(d, wl->name, m);

	int lo = MAX_ROUNDS, hi = 0;
	char rounds[32];

	if (!nm)
		return;
	for (int i = 0; i < d->nr; i++)
		if (!strcmp(d->cells[i].workload, wl->name)) {
			lo = d->cells[i].n < lo ? d->cells[i].n : lo;
			hi = d->cells[i].n > hi ? d->cells[i].n : hi;
		}
	if (lo == hi)
		snprintf(rounds, sizeof(rounds), "%d", lo);
	else
		snprintf(rounds, sizeof(rounds), "%d-%d", lo, hi);
	fprintf(out, "\n#### %s\n\nCPU us per %s, %s of %s rounds "
		"(spread); x = vs the best mode with regular fds%s%s; syscalls "
		"and fd-table operations per %s.\n\n| mode |",
		wl->title, wl->unit, d->cells[0].by_median ? "median" : "mean",
		rounds, wl->param[0] == '-' ? "" : " at the same ",
		wl->param[0] == '-' ? "" : wl->param, wl->unit);
	for (int j = 0; j < np; j++)
		if (wl->param[0] == '-')
			fprintf(out, " whole tree |");
		else
			fprintf(out, " %s %d |", wl->param, p[j]);
	if (wl->param[0] == '-')
		fprintf(out, " syscalls | fd ops |\n|---|");
	else
		fprintf(out, " syscalls (%d) | fd ops |\n|---|", p[np - 1]);
	for (int j = 0; j < np; j++)
		fprintf(out, "---|");
	fprintf(out, "---|---|\n");
	for (int i = 0; i < nm; i++) {
		struct cell *last = NULL;

		fprintf(out, "| %s%s%s |", is_direct(m[i]) ? "**" : "", m[i],
			is_direct(m[i]) ? "**" : "");
		for (int j = 0; j < np; j++) {
			struct cell *c = cell(d, wl->name, m[i], p[j]);
			double v;

			if (!c) {
				fprintf(out, " - |");
				continue;
			}
			last = c;
			v = figure(c);
			fprintf(out, " %.2f (%.1f%%) %.3fx |", v, spread(c),
				v / best_regular(d, wl->name, p[j]));
		}
		if (last && last->syscalls >= 0)
			fprintf(out, " %.2f | %.2f |\n", last->syscalls,
				last->fdops);
		else
			fprintf(out, " - | %.2f |\n", last ? last->fdops : 0);
	}
	if (!with_ceiling || !d->costs)
		return;
	for (int i = 0; i < nm && with_ceiling == 1; i++)
		with_ceiling += is_direct(m[i]);
	if (with_ceiling == 1)
		return;		/* no direct mode measured */
	fprintf(out, "\nCeiling and saving, us per %s: what `%s` spends on "
		"descriptor work (fdcost); per direct mode, what it saves "
		"against the regular-fd mode that does the same operations, "
		"and which share of the ceiling that is.\n\n| %s | ceiling |",
		wl->unit, wl->regular,
		wl->param[0] == '-' ? "param" : wl->param);
	for (int i = 0; i < nm; i++)
		if (is_direct(m[i]))
			fprintf(out, " %s vs %s: saved (share) |", m[i],
				twin(wl, m[i]));
	fprintf(out, "\n|---|---|");
	for (int i = 0; i < nm; i++)
		if (is_direct(m[i]))
			fprintf(out, "---|");
	fprintf(out, "\n");
	for (int j = 0; j < np; j++) {
		double ce = ceiling(d, wl->name, p[j]);

		fprintf(out, "| %d | %.2f |", p[j], ce);
		for (int i = 0; i < nm; i++) {
			struct cell *c = cell(d, wl->name, m[i], p[j]);
			struct cell *r = cell(d, wl->name, twin(wl, m[i]), p[j]);
			double saved;

			if (!is_direct(m[i]))
				continue;
			if (!c || !r) {
				fprintf(out, " - |");
				continue;
			}
			saved = figure(r) - figure(c);
			fprintf(out, " %.2f (%.0f%%) |", saved,
				saved / ce * 100);
		}
		fprintf(out, "\n");
	}
}

/*
 * The depth workloads (bench/depth.c): per operation and depth, the
 * syscall, the request forced to io-wq and the request as the kernel
 * issues it, each as operations per second (of guest time: under -icount,
 * instructions) and CPU per operation, with the two comparisons the issue
 * and the handoff RFC make: the rate against io-wq's, the CPU against the
 * syscall's.
 */
static double mean_rate(const struct cell *c)
{
	return stats_mean(c->rate, c->n);
}

static void depth_table(FILE *out, struct data *d, const char *w,
			const char *title)
{
	static const char *const ops[] = {
		"statx-name", "statx-slot", "open-close", "rename",
	};
	static const int depths[] = { 1, 8, 32 };
	char m[24];

	if (!cell(d, w, "statx-name.sys", 1))
		return;
	fprintf(out, "\n#### %s\n\nPer operation and requests in flight: "
		"thousands of operations per second of guest time (kops/s) "
		"and CPU us per operation (mean of the rounds), for the "
		"syscall, the request forced to io-wq (IOSQE_ASYNC) and the "
		"request as the kernel issues it (ring); \"vs io-wq\" is the "
		"ring's rate against io-wq's, \"vs syscall\" the ring's CPU "
		"against the syscall's.\n\n| op | in flight | syscall kops/s "
		"| us | io-wq kops/s | us | ring kops/s | us | ring vs io-wq "
		"(rate) | ring vs syscall (CPU) |\n|---|---|---|---|---|---|"
		"---|---|---|---|\n", title);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct cell *sys, *wq, *ring;

		snprintf(m, sizeof(m), "%s.sys", ops[i]);
		sys = cell(d, w, m, 1);
		for (size_t j = 0; j < sizeof(depths) / sizeof(depths[0]); j++) {
			snprintf(m, sizeof(m), "%s.wq", ops[i]);
			wq = cell(d, w, m, depths[j]);
			snprintf(m, sizeof(m), "%s.ring", ops[i]);
			ring = cell(d, w, m, depths[j]);
			if (!sys || !wq || !ring)
				continue;
			fprintf(out, "| %s | %d | %.1f | %.2f | %.1f | %.2f | "
				"%.1f | %.2f | %+.0f%% | %.2fx |\n", ops[i],
				depths[j], mean_rate(sys) / 1e3, figure(sys),
				mean_rate(wq) / 1e3, figure(wq),
				mean_rate(ring) / 1e3, figure(ring),
				(mean_rate(ring) / mean_rate(wq) - 1) * 100,
				figure(ring) / figure(sys));
		}
	}
}

/*
 * Natively, the thread workloads: CPU us per operation against the thread
 * count, one line per mode, the machine named under the title (@machine,
 * setting.txt's host line): what a file or a connection costs as threads
 * are added, where the shared fd table's contention shows.
 */
static void native_chart(const char *dir, struct data *d, const char *w,
			 const char *machine)
{
	static const char *const colour[] = {
		"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
		"#e6ab02", "#a6761d", "#666666", "#1f78b4",
	};
	const char *m[32];
	int p[16], np = params(d, w, p), nm = modes(d, w, m);
	double hi = 0;
	char path[512];
	FILE *f;

	if (np < 2)
		return;
	for (int i = 0; i < d->nr; i++)
		if (!strcmp(d->cells[i].workload, w))
			hi = fmax(hi, figure(&d->cells[i]));
	hi *= 1.05;
	snprintf(path, sizeof(path), "%s/native-%s.svg", dir, w);
	f = fopen(path, "w");
	if (!f)
		return;
	svg_begin(f, 640, 360);
	svg_text(f, 10, 18, " font-size='14'", "Natively: CPU us per %s "
		 "against threads (median)", strcmp(w, "thfiles") ?
		 "connection" : "file");
	svg_text(f, 10, 34, "", "%s; dashed: regular fds", machine);
	svg_line(f, 60, 320, 480, 320);
	svg_line(f, 60, 40, 60, 320);
	svg_text(f, 60, 350, "", "threads (T), doubling");
	for (int k = 0; k <= 4; k++)
		svg_text(f, 5, 320 - k * 70 + 4, "", "%.2f", hi * k / 4);
	for (int j = 0; j < np; j++)
		svg_text(f, 60 + j * 420 / (np - 1) - 4, 335, "", "%d", p[j]);
	for (int i = 0; i < nm; i++) {
		char fill[32];

		svg_polyline(f, colour[i % 9], !is_direct(m[i]));
		for (int j = 0; j < np; j++) {
			struct cell *c = cell(d, w, m[i], p[j]);

			if (c)
				svg_point(f, 60 + j * 420 / (np - 1),
					  320 - figure(c) / hi * 280);
		}
		svg_polyline_end(f);
		snprintf(fill, sizeof(fill), " fill='%s'", colour[i % 9]);
		svg_text(f, 490, 50 + i * 16, fill, "%s", m[i]);
	}
	svg_end(f);
	fclose(f);
}

/*
 * The machine of the native figures: setting.txt's "host:" line and its
 * host mitigations for Meltdown and Spectre v2 (what a syscall's entry
 * pays), as one line in @buf; "" if there is no setting.txt.
 */
static void machine(const char *dir, char *buf, size_t size)
{
	char path[512], line[512], host[256] = "", mit[256] = "";
	bool in_host = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/setting.txt", dir);
	buf[0] = 0;
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "host: ", 6))
			snprintf(host, sizeof(host), "%.200s", line + 6);
		if (strstr(line, "CPU vulnerabilities"))
			in_host = !strncmp(line, "host", 4);	/* a list follows */
		else if (in_host && (strstr(line, "  meltdown: ") ||
				     strstr(line, "  spectre_v2: ")))
			snprintf(mit + strlen(mit), sizeof(mit) - strlen(mit),
				 "%s%.100s", mit[0] ? "; " : "; mitigations: ",
				 line + 2);
	}
	fclose(f);
	snprintf(buf, size, "%s%s", host, mit);
}

/*
 * One chart: per mode, its CPU per op over the best regular-fd mode's at
 * the same parameter (the tables' x column), against the parameter. The
 * y axis spans the ratios measured: differences of a percent stay visible.
 */
static void chart(const char *dir, struct data *d, const struct workload *wl)
{
	static const char *const colour[] = {
		"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
		"#e6ab02", "#a6761d", "#666666", "#1f78b4",
	};
	const char *m[32];
	int p[16], np = params(d, wl->name, p), nm = modes(d, wl->name, m);
	double lo = 1, hi = 1;
	char path[512];
	FILE *f;

	if (np < 2)
		return;
	for (int i = 0; i < d->nr; i++) {
		struct cell *c = &d->cells[i];
		double r;

		if (strcmp(c->workload, wl->name))
			continue;
		r = figure(c) / best_regular(d, wl->name, c->param);
		lo = fmin(lo, r);
		hi = fmax(hi, r);
	}
	lo -= (hi - lo) * 0.05;
	hi += (hi - lo) * 0.05;
	snprintf(path, sizeof(path), "%s/%s.svg", dir, wl->name);
	f = fopen(path, "w");
	if (!f)
		return;
	svg_begin(f, 640, 360);
	svg_text(f, 10, 18, " font-size='14'", "%s", wl->title);
	svg_text(f, 10, 34, "", "CPU per %s over the best mode with regular "
		 "fds (guest instructions); dashed: regular fds", wl->unit);
	svg_line(f, 60, 320, 480, 320);
	svg_line(f, 60, 40, 60, 320);
	svg_text(f, 60, 350, "", "%s", wl->param);
	for (int k = 0; k <= 4; k++)
		svg_text(f, 5, 320 - k * 70 + 4, "", "%.3f",
			 lo + (hi - lo) * k / 4);
	for (int j = 0; j < np; j++)
		svg_text(f, 60 + j * 420 / (np - 1) - 4, 335, "", "%d", p[j]);
	for (int i = 0; i < nm; i++) {
		char fill[32];

		svg_polyline(f, colour[i % 9], !is_direct(m[i]));
		for (int j = 0; j < np; j++) {
			struct cell *c = cell(d, wl->name, m[i], p[j]);
			double r;

			if (!c)
				continue;
			r = figure(c) / best_regular(d, wl->name, p[j]);
			svg_point(f, 60 + j * 420 / (np - 1),
				  320 - (r - lo) / (hi - lo) * 280);
		}
		svg_polyline_end(f);
		snprintf(fill, sizeof(fill), " fill='%s'", colour[i % 9]);
		svg_text(f, 490, 50 + i * 16, fill, "%s%s", m[i],
			 is_direct(m[i]) && strncmp(m[i], "direct", 6) ?
			 " (direct)" : "");
	}
	svg_end(f);
	fclose(f);
}

/* The modes measured both ways at @p, cheapest first, by @d's figures. */
static int order(struct data *d, const char *w, int p, const char **m)
{
	int n = 0;

	for (int i = 0; i < d->nr; i++) {
		struct cell *c = &d->cells[i];

		if (strcmp(c->workload, w) || c->param != p ||
		    !cell(&guest, w, c->mode, p) || !cell(&native, w, c->mode, p))
			continue;
		m[n++] = c->mode;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--) {
			struct cell *a = cell(d, w, m[j - 1], p);
			struct cell *b = cell(d, w, m[j], p);
			const char *t;

			if (figure(a) <= figure(b))
				break;
			t = m[j];
			m[j] = m[j - 1];
			m[j - 1] = t;
		}
	return n;
}

/* Where the guest's instruction counts and native CPU time disagree. */
static void orders(FILE *out)
{
	fprintf(out, "\n### Guest and native orders\n\nThe modes both "
		"settings measured, cheapest first; = where the orders agree."
		"\n\n| workload | param | guest (instructions) | native (CPU "
		"time) |\n|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		int p[16], np = params(&native, workloads[i].name, p);

		for (int j = 0; j < np; j++) {
			const char *g[32], *n[32];
			int ng = order(&guest, workloads[i].name, p[j], g);
			int same = ng == order(&native, workloads[i].name, p[j],
					       n);

			for (int k = 0; same && k < ng; k++)
				same = !strcmp(g[k], n[k]);
			fprintf(out, "| %s | %d |", workloads[i].name, p[j]);
			for (int k = 0; k < ng; k++)
				fprintf(out, "%s%s", k ? " < " : " ", g[k]);
			fprintf(out, " |");
			if (same)
				fprintf(out, " = |\n");
			else
				for (int k = 0; k < ng; k++)
					fprintf(out, "%s%s%s", k ? " < " : " ",
						n[k], k == ng - 1 ? " |\n" : "");
		}
	}
}

/*
 * Native cells spread widely, but the modes ran interleaved, round by
 * round: the ratio of two modes within a round cancels much of what moved
 * the host. Per workload and parameter, each direct mode against its twin
 * and the syscall mode (epoll, sys) against the regular io_uring one: the
 * median of the per-round ratios, and in how many rounds it was below 1.
 */
static void paired_row(FILE *out, struct data *d, const struct workload *wl,
		       int p, const char *m, const char *base)
{
	struct cell *x = cell(d, wl->name, m, p), *y = cell(d, wl->name, base, p);
	double r[MAX_ROUNDS];
	int n = 0, below = 0;

	if (!x || !y)
		return;
	for (int k = 0; k < x->n && k < y->n; k++) {
		r[n] = x->us[k] / y->us[k];
		below += r[n++] < 1;
	}
	fprintf(out, "| %s | %d | %s / %s | %.3f | %d of %d |\n", wl->name, p,
		m, base, stats_median(r, n), below, n);
}

static void paired(FILE *out, struct data *d)
{
	fprintf(out, "\n### Native, paired by round\n\nThe median over the "
		"rounds of one mode's CPU per op over another's in the same "
		"round, and the rounds in which it was below 1.\n\n| workload "
		"| param | modes | median ratio | rounds below 1 |\n"
		"|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		const struct workload *wl = &workloads[i];
		const char *m[32];
		int pp[16], np = params(d, wl->name, pp);
		int nm = modes(d, wl->name, m);

		for (int j = 0; j < np; j++)
			for (int k = 0; k < nm; k++) {
				if (is_direct(m[k]))
					paired_row(out, d, wl, pp[j], m[k],
						   twin(wl, m[k]));
				else if (is_syscall(m[k]))
					paired_row(out, d, wl, pp[j], m[k],
						   wl->regular);
			}
	}
}

static void costs(FILE *out, struct data *d, const char *where)
{
	if (!d->costs)
		return;
	fprintf(out, "\nDescriptor work on its own (%s, fdcost, median of %d): "
		"an fd installed and removed %.1f ns; a request on a regular fd "
		"over the same on a fixed one %.1f ns for a file (READ), %.1f "
		"ns for a socket (SEND); a FILES_UPDATE in and out of a slot "
		"%.1f ns (less the cost of two trivial system calls where it "
		"makes them).\n", where, d->costs,
		stats_median(d->install, d->costs),
		stats_median(d->fget, d->costs),
		stats_median(d->sock, d->costs),
		stats_median(d->reg, d->costs));
}

/*
 * The spread check: the same runs in several boots (bench/spread.sh); per
 * cell, the spread of the boots' figures. Returns the worst, in %.
 */
static double spread_check(const char *path, int nr, char **csv)
{
	static struct data runs[8];
	double worst = 0;
	int within = 0;
	FILE *out = fopen(path, "w");

	if (!out || nr > 8 || nr < 2) {
		fprintf(stderr, "bench-report: spread needs 2 to 8 runs\n");
		exit(2);
	}
	for (int i = 0; i < nr; i++)
		load(csv[i], &runs[i], 0);
	fprintf(out, "| workload | mode | param |");
	for (int i = 0; i < nr; i++)
		fprintf(out, " boot %d |", i + 1);
	fprintf(out, " spread |\n|---|---|---|");
	for (int i = 0; i < nr; i++)
		fprintf(out, "---|");
	fprintf(out, "---|\n");
	for (int c = 0; c < runs[0].nr; c++) {
		struct cell *x = &runs[0].cells[c];
		double v[8], s;

		fprintf(out, "| %s | %s | %d |", x->workload, x->mode, x->param);
		for (int i = 0; i < nr; i++) {
			struct cell *y = cell(&runs[i], x->workload, x->mode,
					      x->param);

			v[i] = y ? figure(y) : NAN;
			fprintf(out, " %.3f |", v[i]);
		}
		s = stats_spread(v, nr, stats_mean(v, nr));
		fprintf(out, " %.2f%% |\n", s);
		worst = fmax(worst, s);
		within += s <= 1;
	}
	fprintf(out, "\n%d of %d cells within 1%%; the largest spread is "
		"%.2f%%.\n", within, runs[0].nr, worst);
	fclose(out);
	return worst;
}

/*
 * Many threads, natively: per mode, the CPU per op at T threads over the
 * same at one thread (each the median of its rounds). The guest cannot
 * show this: its vCPUs never run at once under -icount.
 */
static void scaling(FILE *out, struct data *d)
{
	static const char *const ws[] = { "thfiles", "thconn" };

	for (int i = 0; i < 2; i++) {
		const char *m[32];
		int p[16], np = params(d, ws[i], p), nm = modes(d, ws[i], m);

		if (np < 2 || p[0] != 1)
			continue;
		fprintf(out, "\n### Native scaling: %s\n\nCPU us per %s at "
			"one thread, then at T threads over that (median of "
			"the rounds).\n\n| mode | T = 1 |", ws[i],
			strcmp(ws[i], "thfiles") ? "connection" : "file");
		for (int j = 1; j < np; j++)
			fprintf(out, " T = %d |", p[j]);
		fprintf(out, "\n|---|");
		for (int j = 0; j < np; j++)
			fprintf(out, "--:|");
		fprintf(out, "\n");
		for (int k = 0; k < nm; k++) {
			struct cell *one = cell(d, ws[i], m[k], 1);

			if (!one)
				continue;
			fprintf(out, "| %s%s%s | %.2f |", is_direct(m[k]) ?
				"**" : "", m[k], is_direct(m[k]) ? "**" : "",
				figure(one));
			for (int j = 1; j < np; j++) {
				struct cell *c = cell(d, ws[i], m[k], p[j]);

				fprintf(out, c ? " %.2fx |" : " - |",
					c ? figure(c) / figure(one) : 0);
			}
			fprintf(out, "\n");
		}
	}
}

static const char usage[] =
	"usage: bench-report GUEST.csv NATIVE.csv OUTDIR\n"
	"       bench-report --spread OUT.md BOOT.csv...\n"
	"make bench's tables and charts from bench-run's rows.\n";

int main(int argc, char **argv)
{
	bool have_guest, have_native;
	char path[512];
	FILE *out;

	usage_help(argc, argv, usage);
	if (argc > 3 && !strcmp(argv[1], "--spread")) {
		double worst = spread_check(argv[2], argc - 3, argv + 3);

		printf("spread: the largest over %d boots is %.2f%% "
		       "(%s)\n", argc - 3, worst, worst <= 1 ? "within 1%" :
		       "MORE THAN 1%");
		return worst <= 1 ? 0 : 1;
	}

	if (argc != 4)
		usage_error(usage);
	have_guest = load(argv[1], &guest, 0);
	have_native = load(argv[2], &native, 1);
	if (!have_guest && !have_native) {
		fprintf(stderr, "bench-report: neither %s nor %s can be read: "
			"nothing was measured\n", argv[1], argv[2]);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/tables.md", argv[3]);
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return 1;
	}
	if (guest.nr) {
		fprintf(out, "### Guest (nofd kernel, QEMU TCG, -icount "
			"shift=0: 1 us = 1000 instructions)\n");
		costs(out, &guest, "guest");
		for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]);
		     i++) {
			table(out, &guest, &workloads[i], 1);
			chart(argv[3], &guest, &workloads[i]);
		}
		depth_table(out, &guest, "depth", "Queue depth on tmpfs: "
			    "STATX, OPENAT + CLOSE, RENAMEAT three ways");
		depth_table(out, &guest, "depth-ext4", "Queue depth on ext4 "
			    "(the guest's disk, cached): the same");
	}
	if (native.nr) {
		char host[600];

		machine(argv[3], host, sizeof(host));
		fprintf(out, "\n### Native (the machine's own kernel, CPU time, "
			"modes that need no nofd operation)\n\nMachine: %s\n",
			host[0] ? host : "(no setting.txt)");
		native_chart(argv[3], &native, "thfiles", host);
		native_chart(argv[3], &native, "thconn", host);
		costs(out, &native, "native");
		for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]);
		     i++)
			table(out, &native, &workloads[i], 1);
		orders(out);
		paired(out, &native);
		scaling(out, &native);
	}
	fclose(out);
	return 0;
}
