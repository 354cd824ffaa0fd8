// SPDX-License-Identifier: MIT
/*
 * Description: submitting a GETDENTS never sleeps on its directory's
 * i_rwsem. io_uring tries GETDENTS inline, with the ring's lock held; if
 * that attempt waits for the directory's lock, io_uring_submit() (and
 * every other submitter of the ring) waits behind any writer, which waits
 * behind any reader. Series v8 did: with one thread listing a directory
 * and another waiting in mkdir() there, a submit of one GETDENTS took as
 * long as the listing. Here the listing never ends by itself: thread A's
 * getdents64(2) writes into a page that userfaultfd holds, so A sleeps
 * holding the lock for reading; thread B's mkdir() in the directory waits
 * for it; then thread S submits a GETDENTS of the directory. The submit
 * must return while A still holds the lock (within 5 s); then the page is
 * filled in, and the GETDENTS completes, after B's mkdir(), with what
 * getdents64(2) lists.
 */
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "getdents-fixture.h"
#include "task.h"

#define TMP "/tmp/getdents-nowait-rwsem"
#define NR_FILES 50

static struct io_uring ring;
static char *stalled;		/* the page userfaultfd holds */
static long page;
static int dir_a, dir_ring;
static volatile pid_t tid_b;
static volatile int submitted, a_done, b_done;

static void *lister(void *arg)
{
	(void)arg;
	syscall(SYS_getdents64, dir_a, stalled, page);
	a_done = 1;
	return NULL;
}

static void *maker(void *arg)
{
	(void)arg;
	tid_b = syscall(SYS_gettid);
	t_assert(!mkdir(TMP "/d/new", 0755), "mkdir");
	b_done = 1;
	return NULL;
}

/* Where thread @tid sleeps (/proc/.../wchan), for a failed setup's line. */
static const char *wchan(pid_t tid)
{
	static char name[64];
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", tid);
	n = t_read_file(path, name, sizeof(name) - 1);
	name[n > 0 ? n : 0] = 0;
	return name;
}

static void *submitter(void *arg)
{
	static char buf[16384];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	(void)arg;
	io_uring_prep_getdents(sqe, dir_ring, buf, sizeof(buf), 0);
	sqe->user_data = (unsigned long)buf;
	t_assert(io_uring_submit(&ring) == 1, "submit");
	submitted = 1;
	return NULL;
}

/* userfaultfd over one page; returns the uffd. */
static int stall_page(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	int uffd = syscall(SYS_userfaultfd, O_CLOEXEC);

	if (uffd < 0)
		return -errno;
	t_assert(!ioctl(uffd, UFFDIO_API, &api), "UFFDIO_API");
	stalled = mmap(NULL, page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t_assert(stalled != MAP_FAILED, "mmap");
	reg.range.start = (unsigned long)stalled;
	reg.range.len = page;
	t_assert(!ioctl(uffd, UFFDIO_REGISTER, &reg), "UFFDIO_REGISTER");
	return uffd;
}

int main(void)
{
	struct pollfd pfd = { .events = POLLIN };
	struct uffdio_zeropage zero = { 0 };
	struct gd_list want = { 0 }, got = { 0 };
	struct io_uring_cqe *cqe;
	pthread_t a, b, s;
	int uffd, ret;

	page = sysconf(_SC_PAGESIZE);
	uffd = stall_page();
	if (uffd == -ENOSYS) {
		if (t_nofd_kernel()) {
			printf("FAIL: the nofd debug kernel lacks userfaultfd\n");
			return T_EXIT_FAIL;
		}
		printf("SKIP: this kernel has no userfaultfd\n");
		return T_EXIT_SKIP;
	}
	t_assert(uffd >= 0, "userfaultfd: %d", uffd);
	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	gd_mount("tmpfs", TMP);
	gd_make_dir(TMP "/d", NR_FILES);
	dir_a = open(TMP "/d", O_RDONLY | O_DIRECTORY);
	dir_ring = open(TMP "/d", O_RDONLY | O_DIRECTORY);
	t_assert(dir_a >= 0 && dir_ring >= 0, "open d");
	ret = io_uring_queue_init(4, &ring, 0);
	t_assert(!ret, "queue_init: %d", ret);

	t_assert(!pthread_create(&a, NULL, lister, NULL), "thread A");
	pfd.fd = uffd;
	t_assert(poll(&pfd, 1, 5000) == 1, "A faults on the held page");
	t_assert(!pthread_create(&b, NULL, maker, NULL), "thread B");
	/* a setup step, not a claim: up to 30 s on a loaded host */
	for (int i = 0; i < 6 && !(tid_b && task_in_d_state(tid_b)); i++)
		t_wait_for(tid_b && task_in_d_state(tid_b));
	t_assert(tid_b && task_in_d_state(tid_b),
		 "B waits in mkdir() for the directory's lock (B %s, in "
		 "\"%s\"; A %s)", b_done ? "made it" : "not done",
		 tid_b ? wchan(tid_b) : "?", a_done ? "done" : "not done");
	t_assert(!pthread_create(&s, NULL, submitter, NULL), "thread S");
	ret = t_wait_for(submitted);
	t_check(ret && !a_done, "io_uring_submit() of GETDENTS returns while "
		"another reader holds the directory and a writer waits for it "
		"(submitted %d, the reader done %d)", submitted, a_done);

	zero.range.start = (unsigned long)stalled;
	zero.range.len = page;
	t_assert(!ioctl(uffd, UFFDIO_ZEROPAGE, &zero), "UFFDIO_ZEROPAGE");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(s, NULL);

	t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
	ret = cqe->res;
	if (ret > 0)
		gd_parse(&got, (char *)(unsigned long)cqe->user_data, ret);
	io_uring_cqe_seen(&ring, cqe);
	t_check(ret > 0, "the GETDENTS completes once the lock is free (%d)",
		ret);
	ret = open(TMP "/d", O_RDONLY | O_DIRECTORY);
	t_assert(ret >= 0 && !gd_read_syscall(ret, 16384, &want), "list d");
	close(ret);
	t_check(gd_same(&got, &want), "it lists what getdents64(2) "
		"lists after the mkdir(): %zu entries (getdents64(2): %zu)",
		got.nr, want.nr);
	gd_list_free(&got);
	gd_list_free(&want);

	io_uring_queue_exit(&ring);
	close(dir_a);
	close(dir_ring);
	close(uffd);
	rmdir(TMP "/d/new");
	gd_remove_dir(TMP "/d", NR_FILES);
	t_check_umount(TMP);
	return t_exit();
}
