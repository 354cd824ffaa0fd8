// SPDX-License-Identifier: MIT
/*
 * Description: SENDFILE of a file with a fanotify permission watch asks
 * the listener as sendfile(2) does, once per request, and obeys it. The
 * listener may take its time, so SENDFILE runs those hooks in io-wq, not
 * inline; in the first version the io-wq issue skipped every check its
 * inline try had not reached: a FAN_DENY was never asked (4096 bytes sent,
 * 0 events), a UDP socket was taken, and a pipe as output oopsed the
 * kernel. Each way (sendfile(2), SENDFILE of an fd and of a slot, with
 * IOSQE_ASYNC) is run with the listener denying and allowing; then a
 * watched file into a pipe (-ENOTSOCK) and into UDP (as sendfile(2)).
 */
#include <sys/fanotify.h>

#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-fanotify"
#define FILE_PATH TMP "/f"

static int fan;
static int events, deny;

/* Answer every permission event: allow, or deny while @deny is set. */
static void *listener(void *arg)
{
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n;

	(void)arg;
	while ((n = read(fan, buf, sizeof(buf))) > 0) {
		struct fanotify_event_metadata *m = (void *)buf;

		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			struct fanotify_response r = {
				.fd = m->fd,
				.response = __atomic_load_n(&deny,
					__ATOMIC_SEQ_CST) ? FAN_DENY : FAN_ALLOW,
			};

			if (m->mask & FAN_ACCESS_PERM)
				__atomic_add_fetch(&events, 1, __ATOMIC_SEQ_CST);
			if (write(fan, &r, sizeof(r)) != sizeof(r))
				perror("fanotify answer");
			close(m->fd);
		}
	}
	return NULL;
}

/* Bytes waiting at @fd, read and dropped. */
static long long drain(int fd)
{
	char buf[65536];
	long long got = 0;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		got += n;
	return got;
}

/* One way with the listener denying or allowing: result and events. */
static void one_way(enum sf_way way, int in, int sv[2], bool no, int want)
{
	int before, ret, asked;
	long long got;

	__atomic_store_n(&deny, no, __ATOMIC_SEQ_CST);
	before = __atomic_load_n(&events, __ATOMIC_SEQ_CST);
	ret = sf_send(way, in, sv[0], 0, 4096);
	asked = __atomic_load_n(&events, __ATOMIC_SEQ_CST) - before;
	got = drain(sv[1]);
	t_check_res(ret, want, "%s, the listener %s: as sendfile(2)",
		    sf_way_names[way], no ? "denying" : "allowing");
	t_check(asked == 1 && got == (ret > 0 ? ret : 0),
		"%s, the listener %s: asked once (%d), the peer got what it "
		"says (%lld)", sf_way_names[way], no ? "denying" : "allowing",
		asked, got);
}

int main(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);
	int in, sv[2], p[2], udp, rcv, sys_deny, sys_allow;
	char warm[8192];
	pthread_t t;

	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	if (fan < 0 && errno == ENOSYS && !t_nofd_kernel())
		return t_no_feature("fanotify permission events");
	t_assert(fan >= 0, "fanotify_init");
	mkdir(TMP, 0755);
	t_make_file(FILE_PATH, sizeof(warm));
	t_assert(!fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS_PERM, AT_FDCWD,
				FILE_PATH), "fanotify_mark");
	t_assert(!pthread_create(&t, NULL, listener, NULL), "listener");
	/* opened after the mark: a file's watches are known at its open */
	in = open(FILE_PATH, O_RDONLY);
	t_assert(in >= 0 && pread(in, warm, sizeof(warm), 0) == sizeof(warm),
		 "read it into the cache");
	t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");

	deny = 1;
	sys_deny = sf_send(SF_SYS, in, sv[0], 0, 4096);
	drain(sv[1]);
	deny = 0;
	sys_allow = sf_send(SF_SYS, in, sv[0], 0, 4096);
	drain(sv[1]);
	t_check(sys_deny == -EPERM && sys_allow == 4096,
		"sendfile(2): -EPERM denied (%d), 4096 allowed (%d)", sys_deny,
		sys_allow);
	for (enum sf_way w = SF_RING; w < SF_NR_WAYS; w++) {
		one_way(w, in, sv, true, sys_deny);
		one_way(w, in, sv, false, sys_allow);
	}

	t_assert(!pipe(p), "pipe");
	t_check_res(sf_send(SF_RING, in, p[1], 0, 4096), -ENOTSOCK,
		    "SENDFILE of a watched file into a pipe: -ENOTSOCK");
	rcv = socket(AF_INET, SOCK_DGRAM, 0);
	udp = socket(AF_INET, SOCK_DGRAM, 0);
	t_assert(rcv >= 0 && udp >= 0 &&
		 !bind(rcv, (void *)&addr, sizeof(addr)) &&
		 !getsockname(rcv, (void *)&addr, &len) &&
		 !connect(udp, (void *)&addr, sizeof(addr)), "udp");
	deny = 1;
	sys_deny = sf_send(SF_SYS, in, udp, 0, 4096);
	deny = 0;
	sys_allow = sf_send(SF_SYS, in, udp, 0, 4096);
	deny = 1;
	t_check_res(sf_send(SF_RING, in, udp, 0, 4096), sys_deny,
		    "SENDFILE of a watched file into UDP, denied: as "
		    "sendfile(2)");
	deny = 0;
	t_check_res(sf_send(SF_RING, in, udp, 0, 4096), sys_allow,
		    "SENDFILE of a watched file into UDP, allowed: as "
		    "sendfile(2)");
	return t_exit();
}
