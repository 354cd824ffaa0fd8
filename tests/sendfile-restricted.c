// SPDX-License-Identifier: MIT
/*
 * Description: SENDFILE's input is a fixed file or not by
 * SPLICE_F_FD_IN_FIXED, a flag that ring restrictions do not look at, so
 * the op holds it to what they say of IOSQE_FIXED_FILE: restrictions that
 * do not allow the flag refuse an input slot with -EACCES, and
 * restrictions that require it, which confine the ring to its registered
 * files, refuse an input descriptor with -EACCES. What they allow sends
 * what sendfile(2) sends; a refused request sends nothing. (SPLICE, in
 * mainline, takes any descriptor as its input under required fixed files.)
 */
#include "sendfile-fixture.h"

#define FILE_PATH "/tmp/sendfile-restricted"
#define LEN 4096

enum policy { NOT_ALLOWED, ALLOWED, REQUIRED };

static const char *const policy_names[] = {
	"FIXED_FILE not allowed", "FIXED_FILE allowed", "FIXED_FILE required",
};

/*
 * A ring allowing SENDFILE only, @policy for IOSQE_FIXED_FILE, @in and
 * @sock in slots SF_IN_SLOT and SF_SOCK_SLOT.
 */
static void setup(struct io_uring *ring, enum policy policy, int in, int sock)
{
	struct io_uring_restriction res[2] = { 0 };
	int fds[2] = { in, sock }, nr = 1;

	t_assert(!io_uring_queue_init(8, ring, IORING_SETUP_R_DISABLED),
		 "ring");
	res[0].opcode = IORING_RESTRICTION_SQE_OP;
	res[0].sqe_op = IORING_OP_SENDFILE;
	if (policy != NOT_ALLOWED) {
		res[1].opcode = policy == REQUIRED ?
			IORING_RESTRICTION_SQE_FLAGS_REQUIRED :
			IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
		res[1].sqe_flags = IOSQE_FIXED_FILE;
		nr = 2;
	}
	t_assert(!io_uring_register_restrictions(ring, res, nr),
		 "restrictions");
	t_assert(!io_uring_register_files(ring, fds, 2), "register files");
	t_assert(!io_uring_enable_rings(ring), "enable");
}

/* What the peer @fd has to read now, without waiting. */
static ssize_t waiting_bytes(int fd)
{
	static char buf[2 * LEN];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

	return n < 0 ? -errno : n;
}

/*
 * SENDFILE of LEN bytes under @policy, @way; @want: its res, or 0 for
 * what sendfile(2) returns.
 */
static void one(enum policy policy, enum sf_way way, int want)
{
	struct io_uring ring;
	int in, sv[2], ret;

	in = open(FILE_PATH, O_RDONLY);
	t_assert(in >= 0, "open");
	sf_pair(AF_UNIX, sv);
	if (!want)
		want = sf_send(SF_SYS, in, sv[0], 0, LEN);
	t_assert(waiting_bytes(sv[1]) == want || want < 0, "reference");
	setup(&ring, policy, in, sv[0]);
	ret = t_run(&ring, sf_prep(t_sqe, way, in, sv[0], 0, LEN));
	t_check_res(ret, want, "%s: %s", policy_names[policy],
		    sf_way_names[way]);
	if (ret < 0)
		t_check_res(waiting_bytes(sv[1]), -EAGAIN,
			    "%s: %s sent nothing", policy_names[policy],
			    sf_way_names[way]);
	io_uring_queue_exit(&ring);
	close(sv[0]);
	close(sv[1]);
	close(in);
}

int main(void)
{
	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	t_assert(t_make_file(FILE_PATH, LEN), "file");

	one(NOT_ALLOWED, SF_RING, 0);
	one(NOT_ALLOWED, SF_FIXED_IN, -EACCES);
	one(NOT_ALLOWED, SF_FIXED_SOCK, -EACCES);
	one(ALLOWED, SF_RING, 0);
	one(ALLOWED, SF_FIXED_IN, 0);
	one(ALLOWED, SF_FIXED_BOTH, 0);
	one(REQUIRED, SF_FIXED_BOTH, 0);
	one(REQUIRED, SF_FIXED_SOCK, -EACCES);
	one(REQUIRED, SF_FIXED_IN, -EACCES);
	one(REQUIRED, SF_RING, -EACCES);
	return t_exit();
}
