// SPDX-License-Identifier: MIT
/*
 * insn-prof: a QEMU TCG plugin that counts the guest instructions executed
 * in each translation block, keyed by the block's first address, and
 * writes them out when QEMU exits:
 *
 *   qemu-system-x86_64 ... -plugin build/profile/insn-prof.so,out=FILE
 *
 * FILE gets one line per address that ran: "ADDRESS INSTRUCTIONS" (hex,
 * decimal). profile/profile-report.c turns two such files into a profile
 * of the instructions per operation by kernel function.
 *
 * Each block's counter is bumped by an inline add in the translated code,
 * not by a call, so that counting costs little. The counts are exact under
 * -icount, where one host thread runs every vCPU (profile/run.sh uses it);
 * with a thread per vCPU two vCPUs can race on a shared block's counter.
 * Blocks are translated again after a flush of the translation cache; the
 * same address then has more than one counter, and they are added up at
 * exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	uint64_t vaddr;
	uint64_t insns;		/* in the block */
	uint64_t execs;		/* bumped by the translated code */
};

/* Blocks in chunks that never move: the translated code holds pointers. */
#define CHUNK	65536

struct chunk {
	struct block b[CHUNK];
	size_t used;
	struct chunk *next;
};

static struct chunk *chunks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char out[4096];
static int failed;

static struct block *new_block(void)
{
	struct block *b = NULL;

	pthread_mutex_lock(&lock);
	if (!chunks || chunks->used == CHUNK) {
		struct chunk *c = calloc(1, sizeof(*c));

		if (!c) {
			failed = 1;
			goto out;
		}
		c->next = chunks;
		chunks = c;
	}
	b = &chunks->b[chunks->used++];
out:
	pthread_mutex_unlock(&lock);
	return b;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = new_block();

	(void)id;
	if (!b)
		return;
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = qemu_plugin_tb_n_insns(tb);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->execs, 1);
}

static int by_vaddr(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* Every block that ran, sorted by address, into one array. */
static struct block *collect(size_t *n)
{
	struct block *all;
	size_t total = 0;

	for (struct chunk *c = chunks; c; c = c->next)
		total += c->used;
	all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return NULL;
	*n = 0;
	for (struct chunk *c = chunks; c; c = c->next)
		for (size_t i = 0; i < c->used; i++)
			if (c->b[i].execs)
				all[(*n)++] = c->b[i];
	qsort(all, *n, sizeof(*all), by_vaddr);
	return all;
}

static void write_out(qemu_plugin_id_t id, void *p)
{
	struct block *all;
	size_t n;
	FILE *f;

	(void)id;
	(void)p;
	all = collect(&n);
	f = fopen(out, "w");
	if (!f || !all || failed) {
		fprintf(stderr, "insn-prof: %s: %s\n", out, !f ?
			strerror(errno) : "out of memory");
		if (f)
			fclose(f);
		free(all);
		return;
	}
	for (size_t i = 0; i < n;) {
		uint64_t vaddr = all[i].vaddr, count = 0;

		for (; i < n && all[i].vaddr == vaddr; i++)
			count += all[i].execs * all[i].insns;
		fprintf(f, "%" PRIx64 " %" PRIu64 "\n", vaddr, count);
	}
	if (fclose(f))
		fprintf(stderr, "insn-prof: %s: %s\n", out, strerror(errno));
	free(all);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			snprintf(out, sizeof(out), "%s", argv[i] + 4);
		} else {
			fprintf(stderr, "insn-prof: unknown argument '%s'\n",
				argv[i]);
			return -1;
		}
	}
	if (!out[0]) {
		fprintf(stderr, "insn-prof: out=FILE is needed\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_out, NULL);
	return 0;
}
