// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_GETDENTS from several rings while the directory
 * changes. Three threads, each with a ring and the directory open as a
 * direct descriptor of its own, list it again and again (REWIND, then at
 * the file position until IORING_CQE_F_DIR_EOF, 1 KiB at a time) while a
 * fourth creates entries under names never used before and removes them
 * again. The readers go on past their 20 passes until the fourth has made
 * 300 entries, so that the listings meet churn however the threads are
 * scheduled (a CI run on a busy host once saw only 82 made in all). In
 * every pass every name is seen at most once, each of the 200 entries
 * that stay is seen exactly once, and every record is well formed; the
 * kernel log stays clean (KASAN, lockdep).
 */
#include <pthread.h>

#include "getdents-fixture.h"

#define DIR_PATH	"/tmp/stress-getdents-churn"
#define STABLE		200
#define READERS		3
#define PASSES		20
#define LIVE		100	/* churned entries alive at once */
#define MADE_MIN	(3 * LIVE)	/* the readers list until this many */
#define BUFSIZE		1024

static volatile int readers_done;
static unsigned long made;	/* churned entries created so far */

struct reader {
	pthread_t thread;
	int passes, bad_passes, errors, records;
	int churned_seen;	/* churned names seen, over all passes */
};

static void *writer(void *arg)
{
	char path[64];

	(void)arg;
	for (unsigned long n = 0; readers_done < READERS; n++) {
		snprintf(path, sizeof(path), DIR_PATH "/c%07lu", n);
		close(open(path, O_CREAT | O_WRONLY, 0644));
		if (n >= LIVE) {
			snprintf(path, sizeof(path), DIR_PATH "/c%07lu",
				 n - LIVE);
			unlink(path);
		}
		__atomic_store_n(&made, n + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* One pass: whether every name came once and every stable name came. */
static int check_pass(const struct gd_list *l, int *churned)
{
	unsigned char stable[STABLE] = { 0 };
	int ok = !l->bad;

	for (size_t i = 0; ok && i < l->nr; i++) {
		const char *name = l->ent[i].name;

		for (size_t j = 0; ok && j < i; j++)
			ok = strcmp(name, l->ent[j].name) != 0;
		if (name[0] == 's')
			ok = ok && stable[atoi(name + 1) % STABLE]++ == 0;
		else if (name[0] == 'c')
			(*churned)++;
		else
			ok = ok && (!strcmp(name, ".") || !strcmp(name, ".."));
	}
	for (int s = 0; ok && s < STABLE; s++)
		ok = stable[s] == 1;
	return ok;
}

static void *reader(void *arg)
{
	struct reader *r = arg;
	struct io_uring ring;
	char *buf = malloc(BUFSIZE);
	int ret;

	t_assert(buf, "malloc");
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 1), "register");
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
		DIR_PATH, O_RDONLY | O_DIRECTORY, 0, 0));
	t_assert(ret == 0, "open the directory direct: %d", ret);

	for (r->passes = 0; r->passes < PASSES ||
	     __atomic_load_n(&made, __ATOMIC_ACQUIRE) < MADE_MIN; r->passes++) {
		struct gd_list l = { 0 };
		unsigned int flags = IORING_GETDENTS_REWIND;
		int n, eof = 0;

		do {
			n = gd_getdents_eof(&ring, 0, 1, buf, BUFSIZE, flags,
					    &eof);
			flags = 0;
			if (n > 0)
				gd_parse(&l, buf, n);
		} while (n > 0 && !eof);
		if (n < 0)
			r->errors++;
		r->records += l.nr;
		if (!check_pass(&l, &r->churned_seen))
			r->bad_passes++;
		gd_list_free(&l);
	}
	io_uring_queue_exit(&ring);
	free(buf);
	__atomic_add_fetch(&readers_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

int main(void)
{
	struct reader r[READERS] = { 0 };
	pthread_t w;
	char path[64];
	int churned = 0;

	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	t_assert(!mkdir(DIR_PATH, 0755), "mkdir");
	for (int i = 0; i < STABLE; i++) {
		snprintf(path, sizeof(path), DIR_PATH "/s%04d", i);
		close(open(path, O_CREAT | O_WRONLY, 0644));
	}
	pthread_create(&w, NULL, writer, NULL);
	for (int i = 0; i < READERS; i++)
		pthread_create(&r[i].thread, NULL, reader, &r[i]);
	for (int i = 0; i < READERS; i++)
		pthread_join(r[i].thread, NULL);
	pthread_join(w, NULL);

	printf("# %lu entries created and %lu removed meanwhile\n", made,
	       made > LIVE ? made - LIVE : 0);
	for (int i = 0; i < READERS; i++) {
		t_check(!r[i].errors && !r[i].bad_passes, "reader %d: %d "
			"passes, %d records; %d passes saw a name twice, missed "
			"a stable entry or a malformed record, %d errors", i,
			r[i].passes, r[i].records, r[i].bad_passes,
			r[i].errors);
		churned += r[i].churned_seen;
	}
	t_check(made >= MADE_MIN && churned > 0, "the directory changed while it "
		"was listed (%lu created, %d changing entries seen)", made,
		churned);
	return t_exit();
}
