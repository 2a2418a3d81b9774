/* cupti_cb_run_undo.c: the members a merge set, kept until it is known
 * whether the file is taken, so that a file refused half-way (a sum that
 * does not fit in 64 bits) leaves the report as it was. Without it the
 * merge had to work on a copy of the whole report for every file, which
 * made merging many files quadratic in their size. */
#include <stdlib.h>

#include "cupti_cb_run.h"

struct cupti_cb_run_undo_entry {
	json_t *obj;		/* borrowed: a member of the report */
	const char *key;	/* borrowed: see cupti_cb_run_undo_set */
	json_t *old;		/* the value before, a reference; NULL: there was none */
};

void cupti_cb_run_undo_set(struct cupti_cb_run_undo *u, json_t *obj, const char *key, json_t *v)
{
	if (u->n == u->cap) {
		u->cap = u->cap ? 2 * u->cap : 64;
		u->e = realloc(u->e, u->cap * sizeof *u->e);
		if (!u->e)
			abort();
	}
	json_t *old = json_object_get(obj, key);
	u->e[u->n++] = (struct cupti_cb_run_undo_entry){ obj, key, old ? json_incref(old) : NULL };
	json_object_set_new(obj, key, v);
}

/* Last set first: a member set twice gets back its first value. */
void cupti_cb_run_undo_rollback(struct cupti_cb_run_undo *u)
{
	while (u->n) {
		struct cupti_cb_run_undo_entry *e = &u->e[--u->n];
		if (e->old)
			json_object_set_new(e->obj, e->key, e->old);
		else
			json_object_del(e->obj, e->key);
	}
}

void cupti_cb_run_undo_commit(struct cupti_cb_run_undo *u)
{
	while (u->n)
		json_decref(u->e[--u->n].old);
}

void cupti_cb_run_undo_free(struct cupti_cb_run_undo *u)
{
	cupti_cb_run_undo_commit(u);
	free(u->e);
	u->e = NULL;
	u->cap = 0;
}
