// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's request parser (httpd/http.c) takes a target
 * in absolute form, as RFC 9112 3.2.2 says a server must ("GET
 * http://host/path HTTP/1.1": the target is then its path, "/" when it
 * has none), refuses one with no host, a userinfo or another scheme, and
 * answers 400 to a Host whose value is not an authority (RFC 9112 3.2:
 * "Host: a/b", a space, a userinfo), as to one sent twice or missing.
 */
#include "test.h"
#include "../httpd/http.c"

static const struct {
	const char *name, *line, *host;	/* host NULL: no Host line */
	int status;
	const char *target;		/* what the parser makes of it */
} cases[] = {
	{ "origin form", "GET /a/b?x=1", "h", 0, "/a/b?x=1" },
	{ "absolute form", "GET http://h/a/b HTTP/1.1", "h", 0, "/a/b" },
	{ "absolute form with a port and query",
	  "GET http://h.example:8080/a?x=1", "h", 0, "/a?x=1" },
	{ "absolute form, scheme in capitals", "GET HTTP://h/x", "h", 0,
	  "/x" },
	{ "absolute https", "GET https://h/x", "h", 0, "/x" },
	{ "absolute form without a path is /", "GET http://h", "h", 0, "/" },
	{ "absolute form with only a query is /", "GET http://h?q", "h", 0,
	  "/" },
	{ "absolute form with an IPv6 literal", "GET http://[::1]:80/x", "h",
	  0, "/x" },
	{ "absolute form, its Host another", "GET http://h/x", "other", 0,
	  "/x" },
	{ "HEAD in absolute form", "HEAD http://h/x", "h", 0, "/x" },
	{ "absolute form, HTTP/1.0 without Host", "GET http://h/x HTTP/1.0",
	  NULL, 0, "/x" },
	{ "absolute form, HTTP/1.1 without Host", "GET http://h/x", NULL, 400,
	  NULL },
	{ "no host", "GET http:///x", "h", 400, NULL },
	{ "a userinfo", "GET http://u@h/x", "h", 400, NULL },
	{ "another scheme", "GET ftp://h/x", "h", 400, NULL },
	{ "a relative target", "GET a/b", "h", 400, NULL },
	{ "Host a/b", "GET /x", "a/b", 400, NULL },
	{ "Host with a space", "GET /x", "a b", 400, NULL },
	{ "Host with a userinfo", "GET /x", "u@h", 400, NULL },
	{ "Host with a backslash", "GET /x", "a\\b", 400, NULL },
	{ "Host with a query", "GET /x", "a?b", 400, NULL },
	{ "Host with a port", "GET /x", "h.example:8080", 0, "/x" },
	{ "Host an IPv6 literal", "GET /x", "[::1]:8080", 0, "/x" },
	{ "Host empty (RFC 9110 7.2)", "GET /x", "", 0, "/x" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct http_head head;
		char buf[512];
		int n, ret;

		n = snprintf(buf, sizeof(buf), "%s%s\r\n", cases[i].line,
			     strstr(cases[i].line, " HTTP/") ? "" :
			     " HTTP/1.1");
		if (cases[i].host)
			n += snprintf(buf + n, sizeof(buf) - n, "Host: %s\r\n",
				      cases[i].host);
		n += snprintf(buf + n, sizeof(buf) - n, "\r\n");
		ret = http_parse(buf, n, &head);
		t_check_res(ret, cases[i].status, "%s: %d", cases[i].name,
			    cases[i].status);
		if (!ret && cases[i].target)
			t_check(head.target_len == strlen(cases[i].target) &&
				!memcmp(head.target, cases[i].target,
					head.target_len),
				"%s: the target is %s (%.*s)", cases[i].name,
				cases[i].target, (int)head.target_len,
				head.target);
	}
	return t_exit();
}
