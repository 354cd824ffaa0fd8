// SPDX-License-Identifier: MIT
/*
 * options.c: nofd-httpd's command line, into opt.
 */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

struct options opt = {
	.addr = "0.0.0.0", .port = 8080, .root = ".", .entries = 256,
	.max_conns = 512, .send = SEND_AUTO, .recv = RECV_SINGLE,
	.idle_ms = 60000,
	.header_ms = 10000, .send_ms = 30000, .drain_ms = 30000, .log = "-", .log_flush_ms = 1000,
	.defer = true,
	.cache_files = 256, .cache_valid_ms = 60000,
	.cache_body = 2048,
};

const char *const send_mode_names[NR_SEND_MODES] = {
	[SEND_AUTO] = "auto", [SEND_SENDFILE] = "sendfile",
	[SEND_SPLICE] = "splice", [SEND_READ] = "read",
};

static void usage(FILE *f, int status)
{
	fprintf(f,
"usage: nofd-httpd [OPTION]...\n"
"Serve the files under a document root over HTTP/1.1 (GET, HEAD), holding\n"
"no file descriptor per connection, file or directory: each thread's ring\n"
"keeps them in its fixed-file table. On a kernel without the nofd series\n"
"it runs in stock mode and says at start what it does instead.\n"
"\n"
"  -a, --addr ADDR        IPv4 or IPv6 address to listen on (default 0.0.0.0)\n"
"  -p, --port PORT        TCP port (default 8080; 0: any, printed at start)\n"
"  -r, --root DIR         document root (default the current directory);\n"
"                         no request resolves outside it\n"
"  -t, --threads N        threads, a ring each, sharing one listener (the\n"
"                         first thread's, passed by MSG_RING; default: the\n"
"                         number of CPUs)\n"
"  -e, --entries N        submission queue entries per ring (default 256)\n"
"  -c, --max-conns N      connections served at once, all threads together\n"
"                         (default 512; one count: any thread may hold all\n"
"                         N); one more gets 503 and is closed. Memory\n"
"                         follows use: about %zu KiB per open connection,\n"
"                         %u KiB more while a body is READ, mapped as used\n"
"  -s, --send MODE        how file bodies are sent: sendfile (SENDFILE file\n"
"                         -> socket; without the nofd series as splice),\n"
"                         splice (SPLICE file -> direct pipe -> socket, to\n"
"                         compare), read (READ into registered\n"
"                         buffers, then SEND) or auto (the default:\n"
"                         sendfile where the kernel has SENDFILE; without\n"
"                         it read for a body that fits one %u KiB buffer\n"
"                         with its head, splice for larger ones; and in\n"
"                         auto a cached file of at most --file-cache-body\n"
"                         bytes from memory)\n"
"      --recv MODE        how requests are read: single (a RECV per request,\n"
"                         the default) or multishot (a kept-alive\n"
"                         connection's one multishot RECV into provided\n"
"                         buffers; httpd/README.md has what it measured)\n"
"      --idle-timeout MS  close a keep-alive connection idle this long\n"
"                         (default 60000)\n"
"      --header-timeout MS\n"
"                         answer 408 and close when a request head takes\n"
"                         longer than this to arrive (default 10000)\n"
"      --send-timeout MS  close a connection whose client takes longer than\n"
"                         this to take one part of a response (default 30000)\n"
"      --drain-timeout MS SIGTERM or SIGINT: the listener is closed at\n"
"                         once, the responses in flight finish for at most\n"
"                         this long, then the server exits 0 (default\n"
"                         30000; 0: no limit, as SIGQUIT always)\n"
"      --precompressed    serve FILE.br or FILE.gz, when it is there and the\n"
"                         request's Accept-Encoding takes it, for FILE, as\n"
"                         nginx's gzip_static (off by default, as there)\n"
"      --list-dotfiles    list names that start with '.' in directory\n"
"                         listings (they are served when asked for by name\n"
"                         either way, as nginx does)\n"
"      --types FILE       content types to add to nginx's default\n"
"                         mime.types (built in) or override, from FILE in\n"
"                         /etc/mime.types' form (\"type ext ...\" lines) or\n"
"                         nginx's (\"types { type ext ...; }\"); may be given\n"
"                         again\n"
"      --file-cache N     files each thread keeps open in its table, with\n"
"                         their size and mtime, to answer requests for them\n"
"                         without opening them (default 256; 0: none)\n"
"      --file-cache-valid MS\n"
"                         how long a cached file's size and mtime are\n"
"                         trusted; then the path is opened afresh (default\n"
"                         60000; 0: no cache)\n"
"      --file-cache-body BYTES\n"
"                         a cached file of at most BYTES is kept in memory\n"
"                         too (read once, then sent with its head by one\n"
"                         SENDMSG; the memory as the read found it), BYTES\n"
"                         per cached file and thread, touched as used\n"
"                         (default 2048, at most %u; 0: none)\n"
"  -l, --access-log FILE  common log format, one line per request, to FILE\n"
"                         (opened as a direct descriptor) or - for stdout\n"
"                         (the default)\n"
"  -n, --no-access-log    no access log\n"
"      --error-log FILE   what the server says (start-up choices, failed\n"
"                         opens other than 404, limits reached, drains cut)\n"
"                         to FILE, reopened with the access log; default\n"
"                         stderr\n"
"      --log-flush MS     write the log's lines when %u KiB have gathered\n"
"                         or MS after the first (default 1000, as nginx's\n"
"                         access_log flush=1s; 0: after each batch of\n"
"                         completions); they wait at most MS plus a tick\n"
"                         of the timeouts (up to 1 s)\n"
"      --no-defer         rings without SINGLE_ISSUER|DEFER_TASKRUN\n"
"                         (httpd/README.md has what each costs)\n"
"      --user NAME        started as root: once the listener, rings and\n"
"                         logs are set up, serve as NAME (a user of\n"
"                         /etc/passwd, UID or UID:GID; default nobody, uid\n"
"                         65534 where /etc/passwd has none), with its groups;\n"
"                         as uid 0 only with --user root. Started as another\n"
"                         user: no change (NAME may only be that user)\n"
"      --stock            stock mode on the nofd kernel too: the root as one\n"
"                         O_PATH descriptor, STATX by path, listings through\n"
"                         a briefly installed descriptor\n"
"      --stats            at exit, print counters (requests, cache, pipes,\n"
"                         file bodies and their parts by each send way,\n"
"                         bodies from memory and the READs that filled it,\n"
"                         buffer chunks mapped and unmapped) and the heap\n"
"                         allocations made after start-up to stderr\n"
"  -h, --help             this text\n"
"\n"
"Signals: SIGTERM or SIGINT: stop (--drain-timeout); SIGQUIT: stop, no limit;\n"
"SIGUSR1 or SIGHUP: reopen the logs; SIGUSR2: ignored.\n"
"See httpd/README.md.\n", CONN_KIB, CHUNK / 1024, CHUNK / 1024,
		CHUNK, LOG_MAX / 2 / 1024);
	exit(status);
}

/* A bad command line: what is wrong, in one line, and where help is */
void bad_option(const char *fmt, ...)
{
	va_list ap;

	fputs("nofd-httpd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'nofd-httpd --help' for the options.\n", stderr);
	exit(2);
}

/* @v must be at least @min */
static void at_least(unsigned long v, unsigned long min, const char *what)
{
	if (v < min)
		bad_option("%s: %lu, but it must be at least %lu", what, v, min);
}

static unsigned long number(const char *s, const char *what, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v > max)
		bad_option("%s: '%s' is not a number up to %lu", what, s, max);
	return v;
}

/* --send's @name; an unknown one is a usage error that lists them */
static enum send_mode send_mode(const char *name)
{
	char names[64];
	size_t len = 0;

	for (int m = 0; m < NR_SEND_MODES; m++)
		if (!strcmp(name, send_mode_names[m]))
			return m;
	for (int m = 0; m < NR_SEND_MODES; m++)
		len += snprintf(names + len, sizeof(names) - len, "%s%s",
				!m ? "" : m < NR_SEND_MODES - 1 ? ", " : " or ",
				send_mode_names[m]);
	bad_option("--send: '%s' is not %s", name, names);
}

void parse_options(int argc, char **argv)
{
	enum {
		O_IDLE = 256, O_HEADER, O_SENDT, O_NODEFER, O_STATS, O_CACHE,
		O_VALID, O_STOCK, O_RECV, O_FLUSH, O_PRECOMP,
		O_DOTFILES, O_TYPES, O_USER, O_DRAIN, O_ERRLOG, O_BODY,
	};
	static const struct option longs[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "root", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "entries", required_argument, NULL, 'e' },
		{ "max-conns", required_argument, NULL, 'c' },
		{ "send", required_argument, NULL, 's' },
		{ "recv", required_argument, NULL, O_RECV },
		{ "idle-timeout", required_argument, NULL, O_IDLE },
		{ "header-timeout", required_argument, NULL, O_HEADER },
		{ "send-timeout", required_argument, NULL, O_SENDT },
		{ "drain-timeout", required_argument, NULL, O_DRAIN },
		{ "file-cache", required_argument, NULL, O_CACHE },
		{ "file-cache-valid", required_argument, NULL, O_VALID },
		{ "file-cache-body", required_argument, NULL, O_BODY },
		{ "access-log", required_argument, NULL, 'l' },
		{ "no-access-log", no_argument, NULL, 'n' },
		{ "error-log", required_argument, NULL, O_ERRLOG },
		{ "log-flush", required_argument, NULL, O_FLUSH },
		{ "no-defer", no_argument, NULL, O_NODEFER },
		{ "stock", no_argument, NULL, O_STOCK },
		{ "precompressed", no_argument, NULL, O_PRECOMP },
		{ "list-dotfiles", no_argument, NULL, O_DOTFILES },
		{ "types", required_argument, NULL, O_TYPES },
		{ "stats", no_argument, NULL, O_STATS },
		{ "user", required_argument, NULL, O_USER },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char err[512];
	int ch;

	opt.threads = sysconf(_SC_NPROCESSORS_ONLN);
	while ((ch = getopt_long(argc, argv, "a:p:r:t:e:c:s:l:nh", longs,
				 NULL)) != -1) {
		switch (ch) {
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = number(optarg, "--port", 65535); break;
		case 'r': opt.root = optarg; break;
		case 't': opt.threads = number(optarg, "--threads", 64); break;
		case 'e': opt.entries = number(optarg, "--entries", 32768); break;
		case 'c': opt.max_conns = number(optarg, "--max-conns", 65536);
			  break;
		case 's': opt.send = send_mode(optarg); break;
		case O_RECV:
			if (!strcmp(optarg, "multishot"))
				opt.recv = RECV_MULTISHOT;
			else if (!strcmp(optarg, "single"))
				opt.recv = RECV_SINGLE;
			else
				bad_option("--recv: '%s' is not single or multishot",
				    optarg);
			break;
		case O_IDLE: opt.idle_ms = number(optarg, "--idle-timeout",
						  INT_MAX); break;
		case O_HEADER: opt.header_ms = number(optarg, "--header-timeout",
						      INT_MAX); break;
		case O_SENDT: opt.send_ms = number(optarg, "--send-timeout",
						   INT_MAX); break;
		case O_DRAIN: opt.drain_ms = number(optarg, "--drain-timeout",
						    INT_MAX); break;
		case O_CACHE: opt.cache_files = number(optarg, "--file-cache",
						       65536); break;
		case O_VALID: opt.cache_valid_ms = number(optarg,
			"--file-cache-valid", INT_MAX); break;
		case O_BODY: opt.cache_body = number(optarg,
			"--file-cache-body", CHUNK); break;
		case 'l': opt.log = optarg; break;
		case 'n': opt.log = NULL; break;
		case O_ERRLOG: opt.error_log = optarg; break;
		case O_FLUSH: opt.log_flush_ms = number(optarg, "--log-flush",
							INT_MAX); break;
		case O_NODEFER: opt.defer = false; break;
		case O_STOCK: opt.stock = true; break;
		case O_PRECOMP: opt.precompressed = true; break;
		case O_DOTFILES: opt.list_dotfiles = true; break;
		case O_TYPES:
			if (http_types_load(optarg, err, sizeof(err)))
				bad_option("--types %s", err);
			break;
		case O_STATS: opt.stats = true; break;
		case O_USER: opt.user = optarg; break;
		case 'h': usage(stdout, 0); break;
		default:	/* getopt_long() said which */
			fputs("Try 'nofd-httpd --help' for the options.\n",
			      stderr);
			exit(2);
		}
	}
	if (optind < argc)
		bad_option("'%s': an argument, where only options are taken",
		    argv[optind]);
	at_least(opt.threads, 1, "--threads");
	at_least(opt.entries, 8, "--entries");
	at_least(opt.max_conns, 1, "--max-conns");
	at_least(opt.idle_ms, 1, "--idle-timeout");
	at_least(opt.header_ms, 1, "--header-timeout");
	at_least(opt.send_ms, 1, "--send-timeout");
	if (!opt.cache_valid_ms)
		opt.cache_files = 0;
	if (opt.send != SEND_AUTO)	/* a forced way sends every body */
		opt.cache_body = 0;
}
