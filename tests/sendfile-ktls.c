// SPDX-License-Identifier: MIT
/*
 * Description: kTLS attached to a TCP socket while a SENDFILE waits on it
 * for room applies to what the SENDFILE sends from then on, as it applies
 * to a sendfile(2) called again on that socket: the peer reads the bytes
 * sent before, in the clear and the file's, then TLS records carrying
 * exactly the rest, the very records sendfile(2) makes of the rest on a
 * socket with the same keys and record sequence. Nothing is lost or sent
 * twice, and nothing goes out in the clear once the keys are set; and a
 * new SENDFILE on that socket returns what sendfile(2) returns there.
 * (Series v10 checked the socket once, without its lock: a waiting
 * SENDFILE went on through kTLS, which a new one refused with
 * -EOPNOTSUPP.) The socket is named by fd and by slot.
 */
#include <sys/ioctl.h>
#include <linux/sockios.h>

#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-ktls"
#define FILE_PATH TMP "/f"
#define SIZE (4 << 20)
#define MAX_WIRE (SIZE + SIZE / 256 + 4096)

/* Whether @n bytes are the file's first (byte i is 'a' + i % 26). */
static bool file_bytes(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != 'a' + i % 26)
			return false;
	return true;
}

/* Where the first TLS record header (application data, TLS 1.2) starts. */
static size_t first_record(const struct sf_capture *w)
{
	for (size_t i = 0; i + 3 <= w->len; i++)
		if (w->bytes[i] == 0x17 && w->bytes[i + 1] == 0x03 &&
		    w->bytes[i + 2] == 0x03)
			return i;
	return w->len;
}

/* What sendfile(2) of @len bytes from @off puts on a fresh kTLS socket. */
static void reference(int in, long long off, size_t len,
		      struct sf_capture *ref)
{
	int sv[2];

	sf_pair(AF_INET, sv);
	t_assert(sf_ktls_tx(sv[0]), "kTLS on the reference socket");
	sf_capture_start(ref, sv[1], ref->bytes, MAX_WIRE);
	t_check(sf_send(SF_SYS, in, sv[0], off, len) == (long long)len,
		"sendfile(2) of the rest to a kTLS socket sends %zu bytes",
		len);
	shutdown(sv[0], SHUT_WR);
	sf_capture_join(ref);
	close(sv[0]);
	close(sv[1]);
}

static void attach_while_waiting(enum sf_way way, struct sf_capture *w,
				 struct sf_capture *ref)
{
	int in = open(FILE_PATH, O_RDONLY), sv[2], unsent = 0, ret;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	size_t k;

	t_assert(in >= 0, "open");
	sf_pair(AF_INET, sv);
	sf_ring(&ring, way, in, sv[0]);
	sf_prep(io_uring_get_sqe(&ring), way, in, sv[0], 0, SIZE);
	t_assert(io_uring_submit(&ring) == 1, "submit");
	/* nobody reads: it sent what the socket takes, and waits */
	t_assert(io_uring_peek_cqe(&ring, &cqe) == -EAGAIN,
		 "%s of %d bytes waits for room", sf_way_names[way], SIZE);
	t_assert(!ioctl(sv[0], SIOCOUTQ, &unsent) && unsent > 0,
		 "bytes wait in the socket");

	if (!sf_ktls_tx(sv[0])) {
		t_check(!t_nofd_kernel(), "kTLS attaches (%s)",
			strerror(errno));
		io_uring_queue_exit(&ring);
		close(sv[0]);
		close(sv[1]);
		close(in);
		return;
	}
	sf_capture_start(w, sv[1], w->bytes, MAX_WIRE);
	t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
	ret = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	/* a new request on that socket sends as sendfile(2) does there */
	t_check_res(t_run(&ring, sf_prep(t_sqe, way, in, sv[0], 0, 4096)),
		    sf_send(SF_SYS, in, sv[0], 0, 4096),
		    "%s: a new one on the kTLS socket returns what sendfile(2) "
		    "does there", sf_way_names[way]);
	shutdown(sv[0], SHUT_WR);
	sf_capture_join(w);

	k = first_record(w);
	t_check_res(ret, SIZE, "%s waiting when kTLS is attached sends the "
		    "whole file", sf_way_names[way]);
	t_check(k > 0 && k < SIZE && file_bytes(w->bytes, k),
		"%s: the peer reads %zu bytes in the clear first, the file's",
		sf_way_names[way], k);
	reference(in, k, SIZE - k, ref);
	/* the new requests' records follow */
	t_check(w->len - k > ref->len &&
		!memcmp(w->bytes + k, ref->bytes, ref->len),
		"%s: then %zu bytes of TLS records, the %zu that sendfile(2) "
		"of the rest makes with the same keys", sf_way_names[way],
		w->len - k, ref->len);
	io_uring_queue_exit(&ring);
	close(sv[0]);
	close(sv[1]);
	close(in);
}

int main(void)
{
	static struct sf_capture w, ref;
	int ret;

	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	ret = sf_ktls_missing();
	if (ret)
		return ret;
	mkdir(TMP, 0755);
	t_make_file(FILE_PATH, SIZE);
	w.bytes = malloc(MAX_WIRE);
	ref.bytes = malloc(MAX_WIRE);
	t_assert(w.bytes && ref.bytes, "malloc");

	attach_while_waiting(SF_RING, &w, &ref);
	attach_while_waiting(SF_FIXED_BOTH, &w, &ref);
	return t_exit();
}
