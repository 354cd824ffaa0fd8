/* SPDX-License-Identifier: MIT */
/*
 * httpd-download.h: a large file whose every byte is known, and a slow
 * client for it (a 64 KiB receive buffer), for the server tests that send
 * the server signals while a response is in flight (httpd-drain,
 * httpd-reopen): the download read across them must be whole, byte for
 * byte.
 */
#ifndef NOFD_HTTPD_DOWNLOAD_H
#define NOFD_HTTPD_DOWNLOAD_H

#include "httpd.h"

static inline unsigned char dl_byte(size_t i)
{
	return i ^ (i >> 8) ^ (i >> 16);
}

/* @root/big.bin, @size bytes (a whole number of MiB) of dl_byte() */
static inline void dl_make(const char *root, size_t size)
{
	static unsigned char chunk[1 << 20];
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/big.bin", root);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	t_assert(fd >= 0, "create %s", path);
	for (size_t off = 0; off < size; off += sizeof(chunk)) {
		for (size_t i = 0; i < sizeof(chunk); i++)
			chunk[i] = dl_byte(off + i);
		t_assert(write(fd, chunk, sizeof(chunk)) == sizeof(chunk),
			 "write %s", path);
	}
	close(fd);
}

/* A connection whose receive buffer stays 64 KiB, GET /big.bin sent */
static inline int dl_start(int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct timeval tv = { .tv_sec = 20 };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), size = 65536;
	static const char req[] = "GET /big.bin HTTP/1.1\r\nHost: t\r\n"
				  "Connection: close\r\n\r\n";

	t_assert(s >= 0, "socket");
	t_assert(!setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)),
		 "SO_RCVBUF");
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t_assert(!connect(s, (void *)&sa, sizeof(sa)), "connect %d", port);
	hc_send(s, req, sizeof(req) - 1);
	return s;
}

/*
 * Read the head of @s (the first time: *@head_seen) and then its body up
 * to @upto bytes, each byte checked; the body bytes read so far in
 * *@got. False if a byte differs, the connection ends first, or the head
 * is not a 200 of @size bytes.
 */
static inline bool dl_read(int s, size_t size, size_t upto, size_t *got,
			   bool *head_seen)
{
	static char buf[65536];
	char length[64];
	size_t head_len = 0;

	if (!*head_seen) {
		while (!memmem(buf, head_len, "\r\n\r\n", 4)) {
			if (head_len == sizeof(buf) - 1 ||
			    recv(s, buf + head_len, 1, 0) != 1)
				return false;
			head_len++;
		}
		buf[head_len] = '\0';
		snprintf(length, sizeof(length), "Content-Length: %zu\r\n",
			 size);
		if (strncmp(buf, "HTTP/1.1 200", 12) || !strstr(buf, length))
			return false;
		*head_seen = true;
	}
	while (*got < upto) {
		size_t want = upto - *got < sizeof(buf) ? upto - *got :
			      sizeof(buf);
		ssize_t n = recv(s, buf, want, 0);

		if (n <= 0)
			return false;
		for (ssize_t i = 0; i < n; i++)
			if ((unsigned char)buf[i] != dl_byte(*got + i))
				return false;
		*got += n;
	}
	return true;
}

#endif
