/* cupti_cb_run_load.c: the files the runner reads: a report or process
 * file given by name (--report, --compare), and the process files of a run
 * directory, merged in the order of their pids. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run.h"

/* A file that cannot be opened or read says why (errno), without the line
 * that jansson gives as -1 then; a parse error says where. */
json_t *cupti_cb_run_load(const char *path, char *why, size_t n)
{
	json_error_t err;
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(why, n, "the file cannot be read: %s", strerror(errno));
		return NULL;
	}
	json_t *doc = json_loadf(f, 0, &err);
	int read_errno = ferror(f) ? errno : 0;
	fclose(f);
	if (!doc && read_errno)
		snprintf(why, n, "the file cannot be read: %s", strerror(read_errno));
	else if (!doc && err.line > 0)
		snprintf(why, n, "%s (line %d)", err.text, err.line);
	else if (!doc)
		snprintf(why, n, "%s", err.text);
	else if (!json_is_object(doc)) {
		snprintf(why, n, "not a JSON object");
		json_decref(doc);
		doc = NULL;
	}
	return doc;
}

static int is_proc_file(const char *name)
{
	size_t len = strlen(name);
	return !strncmp(name, "proc-", 5) && len >= 10 && !strcmp(name + len - 5, ".json");
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	/* proc-<pid>.json: by pid, so that the report lists processes in order. */
	long pa = atol((*a)->d_name + 5), pb = atol((*b)->d_name + 5);
	return pa < pb ? -1 : pa > pb ? 1 : strcmp((*a)->d_name, (*b)->d_name);
}

static int select_proc(const struct dirent *d)
{
	return is_proc_file(d->d_name);
}

int cupti_cb_run_merge_dir(json_t *report, const char *dir, FILE *err)
{
	struct dirent **names;
	int n = scandir(dir, &names, select_proc, by_name), merged = 0;
	if (n < 0)
		return -1;
	struct cupti_cb_run_merger *m = cupti_cb_run_merger_new(report);
	for (int i = 0; i < n; i++) {
		char path[4096], why[512];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		json_t *doc = cupti_cb_run_load(path, why, sizeof why);
		if (doc && !cupti_cb_run_merger_add(m, doc, why, sizeof why))
			merged++;
		else
			fprintf(err, "cupti_cb_run: %s is left out: %s\n", names[i]->d_name, why);
		json_decref(doc);
		free(names[i]);
	}
	free(names);
	cupti_cb_run_merger_free(m);
	return merged;
}
