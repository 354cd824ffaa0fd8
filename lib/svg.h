/* SPDX-License-Identifier: MIT */
/*
 * svg.h: the one SVG writer of the host's reports (bench-report's line
 * charts, versus-report's bar chart). Each element is one line; a chart
 * is white, 12-point sans-serif, its coordinates in pixels from the top
 * left. @attrs are more attributes, each with a space before it, or "".
 */
#ifndef NOFD_SVG_H
#define NOFD_SVG_H

#include <stdarg.h>
#include <stdio.h>

static inline void svg_begin(FILE *f, int width, int height)
{
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' "
		"height='%d' font-family='sans-serif' font-size='12'>\n"
		"<rect width='%d' height='%d' fill='white'/>\n", width, height,
		width, height);
}

static inline void svg_end(FILE *f)
{
	fprintf(f, "</svg>\n");
}

__attribute__((format(printf, 5, 6)))
static inline void svg_text(FILE *f, int x, int y, const char *attrs,
			    const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "<text x='%d' y='%d'%s>", x, y, attrs);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fprintf(f, "</text>\n");
}

static inline void svg_line(FILE *f, int x1, int y1, int x2, int y2)
{
	fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>\n",
		x1, y1, x2, y2);
}

static inline void svg_rect(FILE *f, int x, int y, int width, int height,
			    const char *fill)
{
	fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='%s'/>\n",
		x, y, width, height, fill);
}

/* A line through the points given by svg_point(), then svg_polyline_end() */
static inline void svg_polyline(FILE *f, const char *colour, int dashed)
{
	fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' "
		"%spoints='", colour, dashed ? "stroke-dasharray='5,3' " : "");
}

static inline void svg_point(FILE *f, int x, double y)
{
	fprintf(f, "%d,%.1f ", x, y);
}

static inline void svg_polyline_end(FILE *f)
{
	fprintf(f, "'/>\n");
}

#endif
