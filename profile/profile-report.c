// SPDX-License-Identifier: MIT
/*
 * profile-report: where the instructions of one operation go, by kernel
 * function, from insn-prof counts of runs that differ only in how many
 * operations they did.
 *
 *   profile-report [-g GROUPS] [-u USER_MAP] SYSTEM_MAP OPS TOP COUNTS_1
 *                  COUNTS_2 [COUNTS_3...]
 *
 * COUNTS_k is insn-prof's output for a guest run of k * OPS operations
 * (or, with OPS a list OPS_1,OPS_2,..., of OPS_k operations): the boot,
 * the set-up and the exit are the same in every run, so the difference of
 * two consecutive runs is what the operations between them cost. Each
 * difference gives one estimate per function; the table shows their mean
 * per operation and the spread of the total over the estimates
 * (lib/stats.h). Addresses in the kernel's text are named
 * from SYSTEM_MAP (static functions of the same name are one row); user
 * space is one line, but for the addresses USER_MAP names: the text
 * symbols of a static, non-PIE program in System.map's format, with
 * _stext and _etext around them (profile/run.sh makes it from the server's
 * or bench-run's binary), each named "PROGRAM: FUNCTION", PROGRAM being
 * USER_MAP's file name without ".map". Such a program runs at the same
 * addresses in every process that runs it: the guest's other static
 * programs (init, versus) run there too, but not per operation. GROUPS
 * (profile/groups.txt) names groups of functions by a regular expression
 * each: their sums come first. Prints Markdown.
 */
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "stats.h"
#include "usage.h"

#define USER_END	0xffff800000000000ull	/* x86-64: the kernel's half */
#define MAX_RUNS	8

struct sym {
	uint64_t addr;
	char *name;
	double count[MAX_RUNS];
};

/* A map's text symbols, sorted, and the text's bounds */
struct map {
	struct sym *syms;
	size_t nsyms;
	uint64_t stext, etext;
	bool user;
};

static struct map kmap, umap = { .user = true };

/* The extra lines: user space and kernel addresses outside the text */
enum { USER, OTHER, EXTRA };
static double extra[EXTRA][MAX_RUNS];
static const char *extra_name[EXTRA] = {
	"[user space]", "[kernel, outside the text]"
};

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void read_map(const char *path, struct map *m)
{
	char line[512], type, name[256], prefix[128] = "";
	const char *base = strrchr(path, '/');
	size_t cap = 0;
	uint64_t addr;
	FILE *f = fopen(path, "r");

	if (!f)
		die(path, -errno);
	/* "PROGRAM: FUNCTION" for a user map's symbols: no group matches it */
	base = base ? base + 1 : path;
	if (m->user)
		snprintf(prefix, sizeof(prefix), "%.*s: ",
			 (int)strcspn(base, "."), base);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type,
			   name) != 3)
			continue;
		if (!strcmp(name, "_stext"))
			m->stext = addr;
		if (!strcmp(name, "_etext"))
			m->etext = addr;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (m->nsyms == cap) {
			cap = cap ? 2 * cap : 4096;
			m->syms = realloc(m->syms, cap * sizeof(*m->syms));
			if (!m->syms)
				die("realloc", -ENOMEM);
		}
		m->syms[m->nsyms] = (struct sym){ .addr = addr };
		if (asprintf(&m->syms[m->nsyms].name, "%s%s", prefix, name) < 0)
			die("asprintf", -ENOMEM);
		m->nsyms++;
	}
	fclose(f);
	if (!m->nsyms || !m->stext || m->etext <= m->stext)
		die(m->user ? "no text symbols between _stext and _etext in "
			"the user map" : "no kernel text symbols in the "
			"System.map", -EINVAL);
	if (m->user && m->etext > USER_END)
		die("the user map's text is not in user space", -EINVAL);
	qsort(m->syms, m->nsyms, sizeof(*m->syms), by_addr);
}

/* The function @addr of @m's text is in: the last symbol at or below it. */
static struct sym *lookup(const struct map *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nsyms;

	if (!m->nsyms || addr < m->stext || addr >= m->etext)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (m->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return m->syms[lo].addr <= addr ? &m->syms[lo] : NULL;
}

static void read_counts(const char *path, int run)
{
	uint64_t addr, count;
	FILE *f = fopen(path, "r");

	if (!f)
		die(path, -errno);
	while (fscanf(f, "%" SCNx64 " %" SCNu64, &addr, &count) == 2) {
		struct sym *s = lookup(&kmap, addr);

		if (!s)
			s = lookup(&umap, addr);
		if (s)
			s->count[run] += count;
		else
			extra[addr < USER_END ? USER : OTHER][run] += count;
	}
	fclose(f);
}

struct row {
	const char *name;
	double per_op;
};

#define MAX_GROUPS	16

static struct group {
	char name[64];
	regex_t re;
	double per_op;
} groups[MAX_GROUPS];
static int ngroups;

/* GROUPS: "NAME<TAB>REGEX" lines; # starts a comment line. */
static void read_groups(const char *path)
{
	char line[2048];
	FILE *f = fopen(path, "r");

	if (!f)
		die(path, -errno);
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');

		if (line[0] == '#' || !tab)
			continue;
		if (ngroups == MAX_GROUPS)
			die("too many groups", -E2BIG);
		*tab = '\0';
		tab[strcspn(tab + 1, "\n") + 1] = '\0';
		snprintf(groups[ngroups].name, sizeof(groups[0].name), "%.63s",
			 line);
		if (regcomp(&groups[ngroups].re, tab + 1,
			    REG_EXTENDED | REG_NOSUB))
			die(line, -EINVAL);
		ngroups++;
	}
	fclose(f);
}

/* Each row's cost to the first group whose expression matches its name. */
static void sum_groups(const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int g = 0; g < ngroups; g++)
			if (!regexec(&groups[g].re, rows[i].name, 0, NULL, 0)) {
				groups[g].per_op += rows[i].per_op;
				break;
			}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct row *)a)->name,
		      ((const struct row *)b)->name);
}

/* One row per name: static functions of different files share names. */
static size_t merge(struct row *rows, size_t n)
{
	size_t out = 0;

	qsort(rows, n, sizeof(*rows), by_name);
	for (size_t i = 0; i < n; i++) {
		if (out && !strcmp(rows[out - 1].name, rows[i].name))
			rows[out - 1].per_op += rows[i].per_op;
		else
			rows[out++] = rows[i];
	}
	return out;
}

static int by_cost(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->per_op < y->per_op ? 1 : x->per_op > y->per_op ? -1 : 0;
}

static double ops[MAX_RUNS];	/* operations in each run */

/* @count per operation over the runs: from the first to the last. */
static double per_op(const double *count, int runs)
{
	return (count[runs - 1] - count[0]) / (ops[runs - 1] - ops[0]);
}

/* OPS: N (run k did k * N operations), or OPS_1,OPS_2,... */
static void read_ops(const char *arg, int runs)
{
	const char *p = arg;
	char *end;
	int n = 0;

	for (;;) {
		ops[n++] = strtod(p, &end);
		if (end == p || *end != ',' || n == runs)
			break;
		p = end + 1;
	}
	if (end == p || *end)
		die("OPS: a number, or a list of one number per run", -EINVAL);
	if (n == 1)
		for (int r = 1; r < runs; r++)
			ops[r] = (r + 1) * ops[0];
	else if (n != runs)
		die("OPS: one number per run", -EINVAL);
	for (int r = 0; r < runs; r++)
		if (ops[r] <= (r ? ops[r - 1] : 0))
			die("OPS: every run must do more than the one before",
			    -EINVAL);
}

/* @m's symbols as rows of their cost per operation; the sum */
static double add_rows(const struct map *m, struct row *rows, size_t *nrows,
		       int runs)
{
	double sum = 0;

	for (size_t i = 0; i < m->nsyms; i++) {
		double v = per_op(m->syms[i].count, runs);

		sum += v;
		if (v != 0)
			rows[(*nrows)++] = (struct row){ m->syms[i].name, v };
	}
	return sum;
}

#define STR(x) #x
#define XSTR(x) STR(x)
static const char usage[] =
	"usage: profile-report [-g GROUPS] [-u USER_MAP] SYSTEM_MAP OPS TOP "
	"COUNTS_1 COUNTS_2 [COUNTS_3...] (at most " XSTR(MAX_RUNS) ")\n"
	"make profile's table (profile/run.sh) from insn-prof's counts.\n";

int main(int argc, char **argv)
{
	double est[MAX_RUNS] = { 0 }, total, kernel, user;
	const char *user_map = NULL;
	struct row *rows;
	size_t nrows = 0;
	int runs, top;

	usage_help(argc, argv, usage);
	while (argc > 2 && (!strcmp(argv[1], "-g") || !strcmp(argv[1], "-u"))) {
		if (argv[1][1] == 'g')
			read_groups(argv[2]);
		else
			user_map = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 6 || argc - 4 > MAX_RUNS)
		usage_error(usage);
	top = atoi(argv[3]);
	runs = argc - 4;
	read_ops(argv[2], runs);
	read_map(argv[1], &kmap);
	if (user_map) {
		read_map(user_map, &umap);
		extra_name[USER] = "[user space, other programs]";
	}
	for (int r = 0; r < runs; r++)
		read_counts(argv[4 + r], r);

	/* the total per estimate, for the spread */
	for (int r = 1; r < runs; r++) {
		for (size_t i = 0; i < kmap.nsyms; i++)
			est[r] += kmap.syms[i].count[r] -
				  kmap.syms[i].count[r - 1];
		for (size_t i = 0; i < umap.nsyms; i++)
			est[r] += umap.syms[i].count[r] -
				  umap.syms[i].count[r - 1];
		for (int e = 0; e < EXTRA; e++)
			est[r] += extra[e][r] - extra[e][r - 1];
		est[r] /= ops[r] - ops[r - 1];
	}

	rows = calloc(kmap.nsyms + umap.nsyms + EXTRA, sizeof(*rows));
	if (!rows)
		die("calloc", -ENOMEM);
	kernel = add_rows(&kmap, rows, &nrows, runs);
	user = add_rows(&umap, rows, &nrows, runs);
	for (int e = 0; e < EXTRA; e++) {
		double v = per_op(extra[e], runs);

		if (e != USER)
			kernel += v;
		rows[nrows++] = (struct row){ extra_name[e], v };
	}
	total = kernel + user + per_op(extra[USER], runs);
	nrows = merge(rows, nrows);
	qsort(rows, nrows, sizeof(*rows), by_cost);
	sum_groups(rows, nrows);

	printf("%.0f instructions per operation (kernel %.0f, user space "
	       "%.0f", total, kernel, total - kernel);
	if (user_map)
		printf(", %.0f of it in the program of the user map", user);
	printf("); %d estimate%s, from runs of %.0f", runs - 1,
	       runs > 2 ? "s" : "", ops[0]);
	for (int r = 1; r < runs; r++)
		printf("%s%.0f", r == runs - 1 ? " and " : ", ", ops[r]);
	printf(" operations");
	if (runs > 2)
		printf(", spread %.2f%%", stats_spread(est + 1, runs - 1,
							  total));
	printf("\n\n");
	if (ngroups) {
		printf("| instructions/op | share | group (profile/groups.txt) "
		       "|\n|--:|--:|---|\n");
		for (int g = 0; g < ngroups; g++)
			printf("| %.0f | %.1f%% | %s |\n", groups[g].per_op,
			       100 * groups[g].per_op / total, groups[g].name);
		printf("\n");
	}
	printf("| instructions/op | share | function |\n|--:|--:|---|\n");
	for (size_t i = 0; i < nrows && (int)i < top; i++)
		printf("| %.0f | %.1f%% | %s |\n", rows[i].per_op,
		       100 * rows[i].per_op / total, rows[i].name);
	return 0;
}
