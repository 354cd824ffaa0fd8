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
#include "usage.h"

#define MAX_FILES	64

static const char *dir;
static struct {
	char name[256];
	FILE *f;
} files[MAX_FILES];
static int nr_files;

/* @name's file: made afresh the first time it is seen, open till the end */
static FILE *file_for(const char *name)
{
	char path[4096];

	for (int i = 0; i < nr_files; i++)
		if (!strcmp(files[i].name, name))
			return files[i].f;
	if (nr_files == MAX_FILES) {
		fprintf(stderr, "unframe: more than %d files\n", MAX_FILES);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	files[nr_files].f = fopen(path, "w");
	if (!files[nr_files].f) {
		fprintf(stderr, "unframe: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	strcpy(files[nr_files].name, name);
	return files[nr_files++].f;
}

static const char usage[] =
	"usage: unframe [DIR] <OUTPUT\n"
	"Pass a guest's output through, leaving out the files it sent home\n"
	"(lib/frame.h), which go to DIR.\n";

int main(int argc, char **argv)
{
	struct frame_reader r = { 0 };
	FILE *file = NULL;
	char line[65536];

	usage_help(argc, argv, usage);
	if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
		usage_error(usage);
	dir = argc == 2 ? argv[1] : NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		switch (frame_read(&r, line)) {
		case FRAME_LOG:
			puts(line);
			break;
		case FRAME_MARK:	/* a block begins (r.in) or ends */
			file = r.in && dir ? file_for(r.name) : NULL;
			break;
		case FRAME_DATA:
			if (file)
				fprintf(file, "%s\n", line);
			break;
		}
	}
	for (int i = 0; i < nr_files; i++)
		if (fclose(files[i].f)) {
			perror("unframe");
			return 1;
		}
	return 0;
}
