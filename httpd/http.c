// SPDX-License-Identifier: MIT
/*
 * http.c: request parsing and the path, date and escaping helpers of
 * nofd-httpd (http.h; content types are mime.c's). Nothing here allocates
 * or does I/O.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"

static const char *find_crlf(const char *p, const char *end)
{
	for (; p + 1 < end; p++)
		if (p[0] == '\r' && p[1] == '\n')
			return p;
	return NULL;
}

/* Whether the header value @v (@n bytes) has the comma-separated token @tok */
static bool has_token(const char *v, size_t n, const char *tok)
{
	size_t tl = strlen(tok);

	while (n) {
		size_t i = 0;

		while (n && (*v == ' ' || *v == '\t' || *v == ',')) {
			v++;
			n--;
		}
		while (i < n && v[i] != ',')
			i++;
		while (i && (v[i - 1] == ' ' || v[i - 1] == '\t'))
			i--;
		if (i == tl && !strncasecmp(v, tok, tl))
			return true;
		while (n && *v != ',') {
			v++;
			n--;
		}
	}
	return false;
}

static int parse_line(const char *p, const char *eol, struct http_head *head)
{
	const char *sp1 = memchr(p, ' ', eol - p), *sp2;

	if (!sp1)
		return 400;
	sp2 = memchr(sp1 + 1, ' ', eol - sp1 - 1);
	if (!sp2)
		return sp1 + 1 - p > HTTP_TARGET_MAX ? 414 : 400;
	if (sp1 - p == 3 && !memcmp(p, "GET", 3))
		head->method = HTTP_GET;
	else if (sp1 - p == 4 && !memcmp(p, "HEAD", 4))
		head->method = HTTP_HEAD;
	else
		head->method = HTTP_OTHER;
	head->target = sp1 + 1;
	head->target_len = sp2 - sp1 - 1;
	if (!head->target_len)
		return 400;
	if (head->target_len > HTTP_TARGET_MAX)
		return 414;
	if (eol - sp2 - 1 != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) ||
	    !isdigit((unsigned char)sp2[8]))
		return eol - sp2 - 1 > 5 && !memcmp(sp2 + 1, "HTTP/", 5) ?
		       505 : 400;
	head->minor = sp2[8] - '0';
	head->line = p;
	head->line_len = eol - p;
	return 0;
}

/*
 * Whether @v (@n bytes) is an authority as Host and an absolute-form
 * target carry it (RFC 9110 7.2, RFC 3986 3.2): a host name, an address
 * or an [IP literal], and a port; no userinfo, no '/', no controls
 */
static bool valid_authority(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = v[i];

		if (!isalnum(c) && !strchr("-._~%!$&'()*+,;=:[]", c))
			return false;
	}
	return true;
}

/*
 * RFC 9112 3.2.2: a server must accept the absolute form of a target
 * ("http://host/path"), whose authority stands for Host; the target is
 * then its path, "/" when it has none
 */
static int absolute_form(struct http_head *head)
{
	const char *t = head->target, *end = t + head->target_len, *path;
	size_t scheme;

	if (head->target_len > 7 && !strncasecmp(t, "http://", 7))
		scheme = 7;
	else if (head->target_len > 8 && !strncasecmp(t, "https://", 8))
		scheme = 8;
	else
		return 400;
	for (path = t + scheme; path < end && *path != '/' && *path != '?' &&
	     *path != '#'; path++)
		;
	if (path == t + scheme || !valid_authority(t + scheme,
						   path - t - scheme))
		return 400;
	if (path == end || *path != '/') {
		/* the query of a target with no path: the root has no use
		 * for it (it is never redirected) */
		head->target = "/";
		head->target_len = 1;
		return 0;
	}
	head->target = path;
	head->target_len = end - path;
	return 0;
}

static int parse_header(const char *p, const char *eol,
			struct http_head *head, int *conn)
{
	const char *colon = memchr(p, ':', eol - p);
	const char *v;
	size_t name, n;

	if (!colon || colon == p || colon[-1] == ' ' || colon[-1] == '\t')
		return 400;
	name = colon - p;
	v = colon + 1;
	while (v < eol && (*v == ' ' || *v == '\t'))
		v++;
	n = eol - v;
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;

#define IS(h) (name == sizeof(h) - 1 && !strncasecmp(p, h, name))
	if (IS("Host")) {
		if (head->has_host || !valid_authority(v, n))
			return 400;
		head->has_host = true;
	} else if (IS("Connection")) {
		if (has_token(v, n, "close"))
			*conn = 0;
		else if (has_token(v, n, "keep-alive") && *conn < 0)
			*conn = 1;
	} else if (IS("If-Modified-Since")) {
		head->if_modified_since = http_parse_date(v, n);
	} else if (IS("If-Match")) {
		head->if_match = v;
		head->if_match_len = n;
	} else if (IS("If-Unmodified-Since")) {
		head->if_unmodified_since = http_parse_date(v, n);
	} else if (IS("If-None-Match")) {
		head->if_none_match = v;
		head->if_none_match_len = n;
	} else if (IS("Range")) {
		head->range = v;
		head->range_len = n;
	} else if (IS("If-Range")) {
		head->if_range = v;
		head->if_range_len = n;
	} else if (IS("Accept-Encoding")) {
		head->accept_encoding = v;
		head->accept_encoding_len = n;
	} else if (IS("Content-Length")) {
		if (!n || n > 18)
			return 400;
		for (size_t i = 0; i < n; i++)
			if (!isdigit((unsigned char)v[i]))
				return 400;
		if (strtoull(v, NULL, 10))
			head->has_body = true;
	} else if (IS("Transfer-Encoding")) {
		head->has_body = true;
	}
#undef IS
	return 0;
}

int http_parse(const char *buf, size_t len, struct http_head *head)
{
	const char *p = buf, *end = buf + len, *eol;
	int conn = -1, ret;

	memset(head, 0, sizeof(*head));
	head->if_modified_since = head->if_unmodified_since = -1;
	/* RFC 9112 2.2: ignore empty lines before the request line */
	while (end - p >= 2 && p[0] == '\r' && p[1] == '\n')
		p += 2;
	eol = find_crlf(p, end);
	if (!eol) {
		if (memchr(p, '\n', end - p))
			return 400;
		return len >= HTTP_HEAD_MAX ?
		       (end - p > HTTP_TARGET_MAX + 16 ? 414 : 431) : 1;
	}
	ret = parse_line(p, eol, head);
	if (!ret && head->target[0] != '/' && head->method != HTTP_OTHER)
		ret = absolute_form(head);
	if (ret)
		return ret;
	for (p = eol + 2;; p = eol + 2) {
		eol = find_crlf(p, end);
		if (!eol)
			return len >= HTTP_HEAD_MAX ? 431 : 1;
		if (eol == p)
			break;
		if (memchr(p, '\0', eol - p))
			return 400;
		ret = parse_header(p, eol, head, &conn);
		if (ret)
			return ret;
	}
	head->head_len = eol + 2 - buf;
	if (head->head_len > HTTP_HEAD_MAX)
		return 431;
	if (head->minor >= 1 && !head->has_host)
		return 400;
	head->keepalive = conn < 0 ? head->minor >= 1 : conn;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int http_path(const char *target, size_t len, char *out, size_t size,
	      bool *dir_slash)
{
	size_t o = 0, i;
	/* where each kept segment starts, to drop it again for ".." */
	size_t seg_start[HTTP_TARGET_MAX / 2 + 1];
	size_t depth = 0;

	if (!len || target[0] != '/')
		return 400;
	*dir_slash = false;
	for (i = 0; i < len && target[i] != '?' && target[i] != '#';) {
		char seg[256 + 1];
		size_t s = 0;

		while (i < len && target[i] == '/')
			i++;
		*dir_slash = i > 0 && target[i - 1] == '/';
		if (i >= len || target[i] == '?' || target[i] == '#')
			break;
		while (i < len && target[i] != '/' && target[i] != '?' &&
		       target[i] != '#') {
			int c = (unsigned char)target[i++];

			if (c == '%') {
				int h, l;

				if (i + 2 > len)
					return 400;
				h = hexval(target[i]);
				l = hexval(target[i + 1]);
				if (h < 0 || l < 0)
					return 400;
				c = h << 4 | l;
				i += 2;
			}
			if (!c)
				return 400;
			if (c == '/')	/* an encoded slash stays a separator */
				break;
			if (s == sizeof(seg) - 1)
				return 414;
			seg[s++] = c;
		}
		*dir_slash = false;
		seg[s] = '\0';
		if (!s || !strcmp(seg, "."))
			continue;
		if (!strcmp(seg, "..")) {
			if (!depth)
				return 400;
			o = seg_start[--depth];
			continue;
		}
		if (o + !!o + s + 1 > size)
			return 414;
		seg_start[depth++] = o;
		if (o)
			out[o++] = '/';
		memcpy(out + o, seg, s);
		o += s;
	}
	if (i < len && target[i] != '?' && target[i] != '#')
		return 400;
	if (!o) {
		if (size < 2)
			return 414;
		out[o++] = '.';
	}
	out[o] = '\0';
	return 0;
}

const char *http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 206: return "Partial Content";
	case 301: return "Moved Permanently";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 413: return "Content Too Large";
	case 412: return "Precondition Failed";
	case 414: return "URI Too Long";
	case 416: return "Range Not Satisfiable";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return "Unknown";
	}
}

size_t http_etag(char out[HTTP_ETAG_MAX], time_t mtime, uint64_t size)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t parts[2] = { (uint64_t)mtime, size };
	size_t n = 0;

	out[n++] = '"';
	for (int i = 0; i < 2; i++) {
		int shift = 60;

		while (shift > 0 && !(parts[i] >> shift))
			shift -= 4;
		for (; shift >= 0; shift -= 4)
			out[n++] = hex[(parts[i] >> shift) & 15];
		out[n++] = i ? '"' : '-';
	}
	out[n] = '\0';
	return n;
}

bool http_etag_match(const char *list, size_t len, const char *etag,
		     size_t etag_len, bool weak)
{
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *tag;
		bool is_weak = false;

		while (p < end && (*p == ' ' || *p == '\t' || *p == ','))
			p++;
		if (p == end)
			break;
		if (*p == '*')
			return true;
		if (end - p >= 2 && p[0] == 'W' && p[1] == '/') {
			p += 2;
			is_weak = true;
		}
		tag = p;
		if (p < end && *p == '"') {
			const char *close = memchr(p + 1, '"', end - p - 1);

			p = close ? close + 1 : end;
		}
		if ((size_t)(p - tag) == etag_len && !memcmp(tag, etag, etag_len) &&
		    (weak || !is_weak))
			return true;
		/* not a quoted tag: skip to the next comma */
		while (p < end && *p != ',')
			p++;
	}
	return false;
}

/* Whether the parameters @p..@end of a list element say q=0 (or 0.000) */
static bool q_zero(const char *p, const char *end)
{
	while (p < end) {
		while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
			p++;
		if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
			p += 2;
			if (p == end || *p != '0')
				return false;
			for (p++; p < end && (*p == '.' || *p == '0'); p++)
				;
			return p == end || *p == ';' || *p == ' ' || *p == '\t';
		}
		while (p < end && *p != ';')
			p++;
	}
	return false;
}

bool http_accepts(const char *ae, size_t len, const char *coding)
{
	const char *p = ae, *end = ae + len;
	size_t cl = strlen(coding);
	int star = -1;		/* "*": -1 absent, 0 refused, 1 taken */

	while (ae && p < end) {
		const char *elem = p, *elem_end = memchr(p, ',', end - p);
		const char *name_end;

		if (!elem_end)
			elem_end = end;
		p = elem_end + (elem_end < end);
		while (elem < elem_end && (*elem == ' ' || *elem == '\t'))
			elem++;
		for (name_end = elem; name_end < elem_end && *name_end != ';' &&
		     *name_end != ' ' && *name_end != '\t'; name_end++)
			;
		if ((size_t)(name_end - elem) == cl &&
		    !strncasecmp(elem, coding, cl))
			return !q_zero(name_end, elem_end);
		if (name_end - elem == 1 && *elem == '*')
			star = !q_zero(name_end, elem_end);
	}
	return star == 1;
}

/*
 * A decimal number at *@p (before @end), moved past; one past what 64 bits
 * hold is UINT64_MAX, which is past the end of any file
 */
static bool range_number(const char **p, const char *end, uint64_t *v)
{
	const char *start = *p;

	*v = 0;
	for (; *p < end && isdigit((unsigned char)**p); (*p)++) {
		unsigned int d = **p - '0';

		*v = *v > (UINT64_MAX - d) / 10 ? UINT64_MAX : *v * 10 + d;
	}
	return *p > start;
}

enum http_range http_range(const char *spec, size_t len, uint64_t size,
			   uint64_t *start, uint64_t *n)
{
	const char *p = spec, *end = spec + len;
	int ranges = 0, satisfiable = 0;
	uint64_t first_byte = 0, count = 0;

	if (len < 6 || strncasecmp(p, "bytes=", 6))
		return HTTP_RANGE_ALL;
	for (p += 6;;) {
		uint64_t first, last;

		/* empty elements of the list are skipped (RFC 9110 5.6.1) */
		while (p < end && (*p == ' ' || *p == '\t' || *p == ','))
			p++;
		if (p == end && ranges)
			break;
		if (p < end && *p == '-') {		/* -suffix */
			p++;
			if (!range_number(&p, end, &last))
				return HTTP_RANGE_ALL;
			if (last && size) {
				satisfiable++;
				first_byte = last < size ? size - last : 0;
				count = size - first_byte;
			}
		} else {				/* first-[last] */
			if (!range_number(&p, end, &first) || p == end ||
			    *p++ != '-')
				return HTTP_RANGE_ALL;
			last = UINT64_MAX;
			if (p < end && isdigit((unsigned char)*p) &&
			    (!range_number(&p, end, &last) || last < first))
				return HTTP_RANGE_ALL;
			if (first < size) {
				satisfiable++;
				first_byte = first;
				count = (last < size ? last + 1 : size) - first;
			}
		}
		ranges++;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			break;
		if (*p != ',')
			return HTTP_RANGE_ALL;
	}
	if (!satisfiable)
		return HTTP_RANGE_UNSATISFIABLE;
	if (ranges > 1)
		return HTTP_RANGE_ALL;
	*start = first_byte;
	*n = count;
	return HTTP_RANGE_ONE;
}

static const char month_name[12][4] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

/* The formats have four digits for the year: 0000-01-01 to 9999-12-31 */
#define YEAR_0		-62167219200L
#define YEAR_10000	253402300800L

struct civil {
	long year;
	int month, day, wday;		/* month 0-11, wday 0 Sunday */
	int hour, min, sec;
};

static long floor_div(long a, long b)
{
	return a / b - (a % b < 0);
}

/* @t in UTC, without gmtime_r()'s time zone lock and tables; clamped to
 * the years the formats can write */
static struct civil civil_time(time_t t)
{
	long days, secs, era, day, year, yday, m, wday;
	struct civil c;

	if (t < YEAR_0)
		t = YEAR_0;
	if (t >= YEAR_10000)
		t = YEAR_10000 - 1;
	days = floor_div(t, 86400);
	secs = t - days * 86400;
	c.hour = secs / 3600;
	c.min = secs / 60 % 60;
	c.sec = secs % 60;
	wday = (days + 4) % 7;		/* 1970-01-01 was a Thursday */
	c.wday = wday < 0 ? wday + 7 : wday;
	/*
	 * Count from 1 March 0000, so that February, with its leap day,
	 * ends the year: a 400-year era is 146,097 days, and within one the
	 * year of day D is (D - D/1460 + D/36524 - D/146096) / 365, which
	 * takes out the leap days before it (every 4th year, not every
	 * 100th, every 400th).
	 */
	days += 719468;		/* 0000-03-01 to 1970-01-01 */
	era = floor_div(days, 146097);
	day = days - era * 146097;
	year = (day - day / 1460 + day / 36524 - day / 146096) / 365;
	yday = day - (365 * year + year / 4 - year / 100);	/* from 1 March */
	m = (5 * yday + 2) / 153;		/* 0 March .. 11 February */
	c.day = yday - (153 * m + 2) / 5 + 1;
	c.month = m < 10 ? m + 2 : m - 10;
	c.year = era * 400 + year + (c.month < 2);
	return c;
}

static char *put2(char *p, int v)
{
	p[0] = '0' + v / 10;
	p[1] = '0' + v % 10;
	return p + 2;
}

/* "DD/Mon/YYYY:HH:MM:SS", @sep for the first two '/', @year_sep the ':' */
static char *put_date(char *p, const struct civil *c, char sep,
		      char year_sep)
{
	p = put2(p, c->day);
	*p++ = sep;
	memcpy(p, month_name[c->month], 3);
	p[3] = sep;
	p = put2(p + 4, c->year / 100);
	p = put2(p, c->year % 100);
	*p++ = year_sep;
	p = put2(p, c->hour);
	*p++ = ':';
	p = put2(p, c->min);
	*p++ = ':';
	return put2(p, c->sec);
}

void http_date(time_t t, char out[HTTP_DATE_LEN])
{
	static const char wday_name[7][4] = {
		"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat",
	};
	struct civil c = civil_time(t);

	memcpy(out, wday_name[c.wday], 3);
	memcpy(out + 3, ", ", 2);
	memcpy(put_date(out + 5, &c, ' ', ' '), " GMT", 5);
}

void http_log_date(time_t t, char out[HTTP_LOG_DATE_LEN])
{
	struct civil c = civil_time(t);

	memcpy(put_date(out, &c, '/', ':'), " +0000", 7);
}

/* Days from 1970-01-01 to @y-@m-@d (@m 0-11), any year */
static long days_from_civil(long y, int m, int d)
{
	long era, yoe, doy;

	if (m < 2)
		y--;
	era = floor_div(y, 400);
	yoe = y - era * 400;
	doy = (153 * (m < 2 ? m + 10 : m - 2) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

static bool leap(long y)
{
	return (y % 4 == 0 && y % 100) || y % 400 == 0;
}

/* A date's parts, as the three forms write them */
struct date_scan {
	const char *p, *end;
};

static bool scan_lit(struct date_scan *d, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(d->end - d->p) < n || memcmp(d->p, lit, n))
		return false;
	d->p += n;
	return true;
}

/* Exactly @digits digits (a leading space for one of asctime's days) */
static bool scan_num(struct date_scan *d, int digits, long *v)
{
	*v = 0;
	if (d->end - d->p < digits)
		return false;
	for (int i = 0; i < digits; i++, d->p++) {
		if (*d->p == ' ' && !i && digits == 2)
			continue;
		if (!isdigit((unsigned char)*d->p))
			return false;
		*v = *v * 10 + (*d->p - '0');
	}
	return true;
}

static bool scan_month(struct date_scan *d, int *month)
{
	for (*month = 0; *month < 12; (*month)++)
		if (scan_lit(d, month_name[*month]))
			return true;
	return false;
}

/* "HH:MM:SS" */
static bool scan_time(struct date_scan *d, long *h, long *m, long *s)
{
	return scan_num(d, 2, h) && scan_lit(d, ":") && scan_num(d, 2, m) &&
	       scan_lit(d, ":") && scan_num(d, 2, s);
}

/* A day name, short or (RFC 850) long: not checked against the date */
static bool scan_wday(struct date_scan *d, bool *long_name)
{
	static const char *const names[7] = {
		"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday",
		"Friday", "Saturday",
	};

	for (int i = 0; i < 7; i++) {
		if (scan_lit(d, names[i])) {
			*long_name = true;
			return true;
		}
		if (d->end - d->p >= 3 && !memcmp(d->p, names[i], 3)) {
			d->p += 3;
			*long_name = false;
			return true;
		}
	}
	return false;
}

/*
 * The time of an HTTP-date in any of RFC 9110 5.6.7's three forms, which
 * a recipient must all accept: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37
 * GMT"), RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT", a two-digit year
 * more than 50 years after @now's being a past one) and asctime ("Sun
 * Nov  6 08:49:37 1994"); or -1
 */
static time_t parse_date_at(const char *s, size_t len, time_t now)
{
	static const int mdays[12] = {
		31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
	};
	struct date_scan d = { s, s + len };
	long year, day, h, m, sec;
	bool long_name;
	int month;

	if (!scan_wday(&d, &long_name))
		return -1;
	if (long_name) {				/* RFC 850 */
		long this_year = civil_time(now).year;

		if (!scan_lit(&d, ", ") || !scan_num(&d, 2, &day) ||
		    !scan_lit(&d, "-") || !scan_month(&d, &month) ||
		    !scan_lit(&d, "-") || !scan_num(&d, 2, &year) ||
		    !scan_lit(&d, " ") || !scan_time(&d, &h, &m, &sec) ||
		    !scan_lit(&d, " GMT"))
			return -1;
		/* the year of those digits nearest to now, at most 50
		 * years ahead */
		year += floor_div(this_year, 100) * 100;
		if (year < this_year - 50)
			year += 100;
		if (year > this_year + 50)
			year -= 100;
	} else if (scan_lit(&d, ", ")) {		/* IMF-fixdate */
		if (!scan_num(&d, 2, &day) || !scan_lit(&d, " ") ||
		    !scan_month(&d, &month) || !scan_lit(&d, " ") ||
		    !scan_num(&d, 4, &year) || !scan_lit(&d, " ") ||
		    !scan_time(&d, &h, &m, &sec) || !scan_lit(&d, " GMT"))
			return -1;
	} else {					/* asctime */
		if (!scan_lit(&d, " ") || !scan_month(&d, &month) ||
		    !scan_lit(&d, " ") || !scan_num(&d, 2, &day) ||
		    !scan_lit(&d, " ") || !scan_time(&d, &h, &m, &sec) ||
		    !scan_lit(&d, " ") || !scan_num(&d, 4, &year))
			return -1;
	}
	if (d.p != d.end || day < 1 || day > mdays[month] ||
	    (month == 1 && day == 29 && !leap(year)) || h > 23 || m > 59 ||
	    sec > 60)
		return -1;
	return days_from_civil(year, month, day) * 86400 + h * 3600 +
	       m * 60 + (sec == 60 ? 59 : sec);
}

time_t http_parse_date(const char *s, size_t len)
{
	return parse_date_at(s, len, time(NULL));
}

static bool put(char *out, size_t size, size_t *pos, const char *s, size_t n)
{
	if (*pos + n >= size)
		return false;
	memcpy(out + *pos, s, n);
	*pos += n;
	return true;
}

bool http_escape_html(char *out, size_t size, size_t *pos, const char *s)
{
	size_t p = *pos;

	for (; *s; s++) {
		const char *e;
		char c = *s;

		switch (c) {
		case '&': e = "&amp;"; break;
		case '<': e = "&lt;"; break;
		case '>': e = "&gt;"; break;
		case '"': e = "&quot;"; break;
		case '\'': e = "&#39;"; break;
		default: e = NULL;
		}
		if (!(e ? put(out, size, &p, e, strlen(e)) :
		      put(out, size, &p, &c, 1)))
			return false;
	}
	*pos = p;
	return true;
}

bool http_escape_url(char *out, size_t size, size_t *pos, const char *s)
{
	size_t p = *pos;

	for (; *s; s++) {
		unsigned char c = *s;
		char hex[4];

		if (isalnum(c) || strchr("-._~", c)) {
			if (!put(out, size, &p, (const char *)&c, 1))
				return false;
			continue;
		}
		snprintf(hex, sizeof(hex), "%%%02X", c);
		if (!put(out, size, &p, hex, 3))
			return false;
	}
	*pos = p;
	return true;
}
