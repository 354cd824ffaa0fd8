// SPDX-License-Identifier: MIT
/*
 * unframe: the host's reader of a guest run's output (lib/frame.h). Each
 * file sent in it goes to DIR/NAME, written afresh by the file's first
 * block and appended to by the others; every other line goes to standard
 * output as it comes. Without DIR the files are left out: what vm/run.sh
 * shows while the guest runs.
 *
 *   unframe [DIR] <OUTPUT
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

#define MAX_FILES	64

static const char *dir;
static char seen[MAX_FILES][256];
static int nr_seen;

/* @name's file: made empty the first time it is seen in this output */
static FILE *open_file(const char *name)
{
	char path[4096];
	const char *mode = "w";
	FILE *f;

	for (int i = 0; i < nr_seen; i++)
		if (!strcmp(seen[i], name))
			mode = "a";
	if (*mode == 'w') {
		if (nr_seen == MAX_FILES) {
			fprintf(stderr, "unframe: more than %d files\n",
				MAX_FILES);
			exit(1);
		}
		strcpy(seen[nr_seen++], name);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, mode);
	if (!f) {
		fprintf(stderr, "unframe: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return f;
}

int main(int argc, char **argv)
{
	struct frame_reader r = { 0 };
	FILE *file = NULL;
	char line[65536];

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: unframe [DIR] <OUTPUT\n");
		return 2;
	}
	dir = argc == 2 ? argv[1] : NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		switch (frame_read(&r, line)) {
		case FRAME_LOG:
			puts(line);
			break;
		case FRAME_MARK:	/* a block begins (r.in) or ends */
			if (file)
				fclose(file);
			file = r.in && dir ? open_file(r.name) : NULL;
			break;
		case FRAME_DATA:
			if (file)
				fprintf(file, "%s\n", line);
			break;
		}
	}
	if (file)
		fclose(file);
	return 0;
}
