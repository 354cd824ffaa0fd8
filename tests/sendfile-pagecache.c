// SPDX-License-Identifier: MIT
/*
 * Description: SENDFILE hands the network what sendfile(2) hands it, copy
 * or no copy. Each way sends a file into a socket nobody reads yet, the
 * file is then overwritten in place, and the peer reads: where sendfile(2)
 * left the page cache's own pages in the socket the peer sees the new
 * bytes, where it copied, the old; SENDFILE, which takes sendfile(2)'s
 * path (the file's ->splice_read() and the socket's splice path), must
 * give the peer exactly what sendfile(2) gives it, on tmpfs, and on TCP
 * and AF_UNIX stream sockets. The test states which one this kernel does
 * and requires only that the two agree.
 */
#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-pagecache"
#define FILE_PATH TMP "/f"
#define SIZE (64 * 1024)

/* Send the file one way, overwrite it with 'Z's, then read the peer. */
static size_t send_then_overwrite(enum sf_way way, int family,
				  unsigned char *got)
{
	int in, out, sv[2];
	size_t len = 0;
	ssize_t n;

	t_make_file(FILE_PATH, SIZE);
	in = open(FILE_PATH, O_RDONLY);
	out = open(FILE_PATH, O_WRONLY);
	t_assert(in >= 0 && out >= 0, "open");
	sf_pair(family, sv);
	t_assert(!setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &(int){ 1 << 20 },
			     sizeof(int)), "rcvbuf");
	t_check_res(sf_send(way, in, sv[0], 0, SIZE), SIZE,
		    "%s, %s: sends the file whole into the socket",
		    family == AF_UNIX ? "unix" : "tcp", sf_way_names[way]);
	memset(got, 'Z', SIZE);
	t_assert(pwrite(out, got, SIZE, 0) == SIZE, "overwrite");
	shutdown(sv[0], SHUT_WR);
	while (len < SIZE && (n = read(sv[1], got + len, SIZE - len)) > 0)
		len += n;
	close(sv[0]);
	close(sv[1]);
	close(in);
	close(out);
	return len;
}

static void compare(int family)
{
	static unsigned char sys[SIZE], ring[SIZE];
	size_t sys_len = send_then_overwrite(SF_SYS, family, sys);
	size_t zs = 0;

	for (size_t i = 0; i < sys_len; i++)
		zs += sys[i] == 'Z';
	printf("# %s: after sendfile(2), %zu of %zu bytes the peer read "
	       "were written after the send\n",
	       family == AF_UNIX ? "unix" : "tcp", zs, sys_len);
	for (enum sf_way w = SF_RING; w < SF_NR_WAYS; w++) {
		size_t len = send_then_overwrite(w, family, ring);

		t_check(len == sys_len && !memcmp(ring, sys, len),
			"%s: %s gives the peer the bytes sendfile(2) gives it "
			"(%s)", family == AF_UNIX ? "unix" : "tcp",
			sf_way_names[w],
			zs ? "the page cache's pages, no copy" : "a copy");
	}
}

int main(void)
{
	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	mkdir(TMP, 0755);
	compare(AF_INET);
	compare(AF_UNIX);
	return t_exit();
}
