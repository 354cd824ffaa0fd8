/* SPDX-License-Identifier: MIT */
/*
 * stall.h: a directory held by a reader that does not come back, for the
 * fuzzer's rounds (fuzz/stall.c).
 *
 * stall_start(DIR) has one thread list DIR with getdents64(2) into a page
 * that userfaultfd holds, so it sleeps holding DIR's i_rwsem for reading,
 * and another wait in mkdir() there for it, so that a third reader would
 * queue behind the writer. Nothing a ring does inline may then sleep on
 * DIR's lock: io_uring_submit() must return. stall_end() fills the page
 * in, so both threads finish, and says whether that was late: if the
 * round did not call it within STALL_LIMIT_S, a helper filled the page in
 * itself (a submit had blocked behind the stalled reader), an error.
 */
#ifndef NOFD_FUZZ_STALL_H
#define NOFD_FUZZ_STALL_H

#include <stdbool.h>

#define STALL_LIMIT_S 10

/* false if the kernel has no userfaultfd, or the threads did not start */
bool stall_start(const char *dir);
/* true if the helper had to end the stall (a submit blocked) */
bool stall_end(void);

#endif
