// SPDX-License-Identifier: MIT
/*
 * append-merge: resolve the one kind of conflict two topics of the series
 * may have with each other, both appending to the same list (the opcode
 * enum, opdef's tables, the FOP_* flags), and refuse every other.
 *
 *   append-merge FILE...
 *
 * Each FILE holds git's conflict markers in the diff3 style (ours, then
 * the common base after "|||||||", then theirs). A conflict whose theirs
 * is its base with lines appended resolves to ours followed by those
 * lines: stacked, a topic's entries go after the ones an earlier topic
 * put there (ours has them, the base not); alone, a topic keeps only its
 * own (ours lacks the earlier topic's entries, which theirs and the base
 * both have). FILE is rewritten in place. Exit 0 if every conflict of
 * every FILE resolved so, 1 otherwise (the files are left as they were),
 * 2 on a usage or I/O error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lines {
	char **v;
	size_t n, cap;
};

static void push(struct lines *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v) {
			perror("append-merge");
			exit(2);
		}
	}
	l->v[l->n++] = s;
}

static int marker(const char *line, const char *m)
{
	size_t n = strlen(m);

	return !strncmp(line, m, n) &&
	       (line[n] == ' ' || line[n] == '\n' || line[n] == '\0');
}

/* Appends the resolution of one conflict to @out; 0, or -1 if not one. */
static int resolve(struct lines *out, struct lines *ours,
		   struct lines *base, struct lines *theirs)
{
	if (theirs->n < base->n)
		return -1;
	for (size_t i = 0; i < base->n; i++)
		if (strcmp(base->v[i], theirs->v[i]))
			return -1;
	for (size_t i = 0; i < ours->n; i++)
		push(out, ours->v[i]);
	for (size_t i = base->n; i < theirs->n; i++)
		push(out, theirs->v[i]);
	return 0;
}

/* Reads @path into lines; resolves its conflicts into @out. */
static int merge_file(const char *path, struct lines *out)
{
	struct lines ours = { 0 }, base = { 0 }, theirs = { 0 }, *cur = NULL;
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int conflicts = 0, bad = 0;

	if (!f) {
		fprintf(stderr, "append-merge: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (getline(&line, &cap, f) >= 0) {
		char *s = strdup(line);

		if (!s) {
			perror("append-merge");
			exit(2);
		}
		if (marker(s, "<<<<<<<")) {
			ours.n = base.n = theirs.n = 0;
			cur = &ours;
		} else if (cur && marker(s, "|||||||")) {
			cur = &base;
		} else if (cur && marker(s, "=======")) {
			cur = &theirs;
		} else if (cur == &theirs && marker(s, ">>>>>>>")) {
			conflicts++;
			if (resolve(out, &ours, &base, &theirs)) {
				fprintf(stderr, "append-merge: %s: conflict %d "
					"is not two appends to one list\n",
					path, conflicts);
				bad = 1;
			}
			cur = NULL;
		} else if (cur) {
			push(cur, s);
		} else {
			push(out, s);
		}
	}
	free(line);
	fclose(f);
	if (cur) {
		fprintf(stderr, "append-merge: %s: a conflict is not closed\n",
			path);
		bad = 1;
	}
	if (!conflicts && !bad) {
		fprintf(stderr, "append-merge: %s: no conflict in diff3 style\n",
			path);
		bad = 1;
	}
	free(ours.v);
	free(base.v);
	free(theirs.v);
	return bad ? -1 : 0;
}

static void write_file(const char *path, const struct lines *l)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "append-merge: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	for (size_t i = 0; i < l->n; i++)
		fputs(l->v[i], f);
	if (fclose(f)) {
		fprintf(stderr, "append-merge: %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct lines *out;
	int bad = 0;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: append-merge FILE... (git conflicts, diff3 style)");
		return 0;
	}
	if (argc < 2) {
		fputs("usage: append-merge FILE... (git conflicts, diff3 style)\n",
		      stderr);
		return 2;
	}
	out = calloc(argc, sizeof(*out));
	if (!out) {
		perror("append-merge");
		return 2;
	}
	/* all or nothing: no file is written unless every one resolves */
	for (int i = 1; i < argc; i++)
		bad |= merge_file(argv[i], &out[i]) != 0;
	if (bad)
		return 1;
	for (int i = 1; i < argc; i++)
		write_file(argv[i], &out[i]);
	return 0;
}
