// SPDX-License-Identifier: MIT
/*
 * Description: closing a ring releases every file its table held. A ring
 * holds direct descriptors of every kind (opened files, an accepted
 * connection, a direct socket, a pipe end) and is closed; then
 *  - the connection's peer and the pipe's reader see EOF,
 *  - the space of unlinked files open only in the table is given back
 *    (tmpfs frees an inode's pages when its last file goes), and
 *  - the system's count of open files returns to its baseline.
 * fs/file-nr is a per-CPU counter read without summing, so it may be off by
 * the counter batch per CPU; the check allows that slack, and opens enough
 * files (NR_FILES) that a leak could not hide in it.
 */
#include <sys/statfs.h>
#include <time.h>

#include "test.h"

#define NR_FILES 512
#define NR_SLOTS (NR_FILES + 8)
#define TEST_DIR "/tmp/no-leak"
#define SLACK 128	/* 2 CPUs x percpu_counter batch (32), twice over */
#define BIG (4 << 20)

static long free_blocks(void)
{
	struct statfs st;

	t_assert(!statfs("/tmp", &st), "statfs");
	return st.f_bfree;
}

int main(void)
{
	struct sockaddr_in addr;
	struct io_uring ring;
	long base_files, base_blocks, held_files, big_blocks;
	int lfd, client, pipefd[2], ret, fds;
	char path[64];

	mkdir(TEST_DIR, 0755);
	lfd = t_listener(&addr);
	client = t_connect(&addr);
	t_assert(!pipe(pipefd), "pipe");
	base_files = t_nr_files();
	base_blocks = free_blocks();

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, NR_SLOTS), "register");
	fds = t_count_fds();

	/* One big file, unlinked while only the table holds it open. */
	t_make_file(TEST_DIR "/big", BIG);
	big_blocks = base_blocks - free_blocks();
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, TEST_DIR "/big",
						       O_RDONLY, 0, 0));
	t_check_res(ret, 0, "OPENAT of the big file into slot 0 returns 0");
	unlink(TEST_DIR "/big");
	for (int i = 1; i < NR_FILES; i++) {
		snprintf(path, sizeof(path), TEST_DIR "/f%d", i);
		close(open(path, O_CREAT | O_WRONLY, 0644));
		ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, path,
							       O_RDONLY, 0, i));
		t_assert(ret == 0, "OPENAT of %s into slot %d: %d", path, i, ret);
		unlink(path);
	}
	ret = t_run(&ring, io_uring_prep_accept_direct(t_sqe, lfd, NULL, NULL, 0,
						       NR_FILES));
	t_check_res(ret, 0, "ACCEPT into slot %d returns 0", NR_FILES);
	ret = t_run(&ring, io_uring_prep_socket_direct(t_sqe, AF_INET6, SOCK_DGRAM,
						       0, NR_FILES + 1, 0));
	t_check_res(ret, 0, "SOCKET into slot %d returns 0", NR_FILES + 1);
	ret = io_uring_register_files_update(&ring, NR_FILES + 2, &pipefd[1], 1);
	t_check_res(ret, 1, "the pipe's write end is registered into slot %d",
		    NR_FILES + 2);
	close(pipefd[1]);

	held_files = t_nr_files();
	t_check(held_files >= base_files + NR_FILES - SLACK,
		"the table holds about %d files (file-nr %ld -> %ld)",
		NR_FILES + 3, base_files, held_files);
	t_check(base_blocks - free_blocks() >= big_blocks,
		"the unlinked big file's %ld blocks stay in use while in the table",
		big_blocks);
	t_check(t_count_fds() == fds - 1, "/proc/self/fd only lost the pipe's write end");

	io_uring_queue_exit(&ring);

	t_check(t_sees_eof(client), "after the ring is closed the accepted peer sees EOF");
	t_check(t_sees_eof(pipefd[0]), "after the ring is closed the pipe's reader sees EOF");
	t_check(t_wait_for(free_blocks() >= base_blocks),
		"tmpfs gives back the unlinked files' blocks (%ld of %ld free)",
		free_blocks(), base_blocks);
	t_check(t_wait_for(t_nr_files() <= base_files + SLACK),
		"the open-file count returns to its baseline (%ld, baseline %ld)",
		t_nr_files(), base_files);

	close(client);
	close(pipefd[0]);
	close(lfd);
	rmdir(TEST_DIR);
	return t_exit();
}
