/* SPDX-License-Identifier: MIT */
/*
 * frame.h: how a program sends a file home from the guest, and how the
 * file is read back. A guest program has one channel to the host, its
 * output (the second serial port: vm/run.sh's OUT/output.log); a file
 * travels on it as a block of lines,
 *
 *   === file NAME
 *   ...the file's lines...
 *   === end
 *
 * and every line outside a block is the run's log. Blocks of one NAME
 * append to each other: a program may send a file a row at a time, between
 * its progress lines, and a run cut short still brings home the rows it
 * sent. NAME is a plain file name (no '/', not "." or ".."). On the host
 * vm/run.sh writes the files to OUT/files/ (vm/unframe.c, the one reader);
 * in the guest tests/bench-smoke reads bench-run's the same way.
 *
 * A long run says how far it is with progress lines in the log
 * (frame_progress()). The test report is not a file: ktap-run's KTAP is
 * the log itself, read line by line as it comes (tests/run.sh).
 */
#ifndef NOFD_FRAME_H
#define NOFD_FRAME_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * Whether this runs in the nofd guest: its PID 1 is vm/init.c's /init.
 * What only the guest may do (bench-run's turning off ASLR for the whole
 * system) asks this, not a flag a person could forget on a host.
 */
static inline bool in_nofd_guest(void)
{
	char exe[16];
	ssize_t n = readlink("/proc/1/exe", exe, sizeof(exe) - 1);

	return n == 5 && !memcmp(exe, "/init", 5);
}

#define FRAME_BEGIN	"=== file "
#define FRAME_END	"=== end"

/* A block of @name's lines begins on @f; frame_end() ends it. */
static inline void frame_begin(FILE *f, const char *name)
{
	fprintf(f, FRAME_BEGIN "%s\n", name);
}

static inline void frame_end(FILE *f)
{
	fputs(FRAME_END "\n", f);
	fflush(f);
}

/*
 * One line of file @name, as a block of its own, written in one go so
 * that no other line of the output lands inside it.
 */
__attribute__((format(printf, 3, 4)))
static inline void frame_line(FILE *f, const char *name, const char *fmt,
			      ...)
{
	char line[4096], block[4096 + 300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(block, sizeof(block), FRAME_BEGIN "%s\n%s\n" FRAME_END "\n",
		 name, line);
	fputs(block, f);
	fflush(f);
}

/*
 * "progress: N/M what runs now": step @step of @steps starts. The one form
 * of the progress line, which vm/progress.sh shows on the host with the
 * time left; a log line like any other, outside every block.
 */
__attribute__((format(printf, 4, 5)))
static inline void frame_progress(FILE *f, int step, int steps,
				  const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fprintf(f, "progress: %d/%d %s\n", step, steps, what);
	fflush(f);
}

enum frame_kind {
	FRAME_LOG,	/* a line of the log, outside every block */
	FRAME_MARK,	/* a block's first or last line */
	FRAME_DATA,	/* a line of the file reader->name */
};

struct frame_reader {
	char name[256];		/* the file of the block we are in */
	bool in;		/* ...if we are in one */
};

static inline bool frame_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..");
}

/*
 * What one line of the output is, in the order the lines came. @line
 * loses its line end ("\n", and the "\r" a serial port may add).
 */
static inline enum frame_kind frame_read(struct frame_reader *r, char *line)
{
	line[strcspn(line, "\r\n")] = '\0';
	if (r->in) {
		if (!strcmp(line, FRAME_END)) {
			r->in = false;
			return FRAME_MARK;
		}
		return FRAME_DATA;
	}
	if (!strncmp(line, FRAME_BEGIN, strlen(FRAME_BEGIN)) &&
	    frame_name_ok(line + strlen(FRAME_BEGIN)) &&
	    strlen(line + strlen(FRAME_BEGIN)) < sizeof(r->name)) {
		strcpy(r->name, line + strlen(FRAME_BEGIN));
		r->in = true;
		return FRAME_MARK;
	}
	return FRAME_LOG;
}

#endif
