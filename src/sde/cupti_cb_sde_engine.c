/* cupti_cb_sde_engine.c: the shared services and the sources, opened as the
 * PAPI adapter (components/cupti_cb/cupti_cb.c) opens them: the catalogue
 * stage when the library loads (libcupti's name table, no driver), the
 * driver stage at the first read of a counter. One of each per process:
 * CUPTI takes one subscriber per process. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cupti_cb_services.h"
#include "cupti_cb_sources.h"
#include "cupti_cb_sde.h"

static struct cupti_cb_services services;
static struct cupti_cb_source sources[CUPTI_CB_MAX_SOURCES];
static unsigned n_sources;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int driver_told;

static void tell_sources(enum cupti_cb_stage stage)
{
	for (unsigned i = 0; i < n_sources; i++)
		if (sources[i].ops)
			sources[i].ops->opened(sources[i].self, stage);
}

/* fork(): as the adapter does, the child takes a fresh lock and, where
 * the parent's CUDA was initialized, the services disable themselves with
 * a sentence (CUDA cannot be used after fork). */
static void at_fork_child(void)
{
	int busy = pthread_mutex_trylock(&lock) != 0;
	pthread_mutex_init(&lock, NULL);
	if (services.state == CUPTI_CB_READY)
		for (unsigned i = 0; i < n_sources; i++)
			if (sources[i].ops && sources[i].ops->after_fork_child)
				sources[i].ops->after_fork_child(sources[i].self);
	cupti_cb_services_fork_child(&services, busy);
}

int cupti_cb_sde_engine_open(char *why, size_t len)
{
	pthread_mutex_lock(&lock);
	if (!n_sources) {
		pthread_atfork(NULL, NULL, at_fork_child);
		for (unsigned i = 0; cupti_cb_sources[i] && i < CUPTI_CB_MAX_SOURCES; i++) {
			void *self = cupti_cb_sources[i]->open(&services, i);
			sources[i] = (struct cupti_cb_source){ self ? cupti_cb_sources[i] : NULL, self, i };
			n_sources = i + 1;
		}
		if (cupti_cb_services_open_catalog(&services) == 0)
			tell_sources(CUPTI_CB_STAGE_NAMES);
	}
	int rc = services.state == CUPTI_CB_DISABLED ? CUPTI_CB_EUNAVAIL : CUPTI_CB_OK;
	if (rc)
		snprintf(why, len, "%s", services.why);
	pthread_mutex_unlock(&lock);
	return rc;
}

int cupti_cb_sde_engine_ready(char *why, size_t len)
{
	pthread_mutex_lock(&lock);
	if (services.state == CUPTI_CB_CATALOG && services.listing_only[0])
		snprintf(why, len, "%s", services.listing_only);
	else if (services.state == CUPTI_CB_CATALOG)
		cupti_cb_services_open(&services);
	if (services.state == CUPTI_CB_READY && !driver_told) {
		tell_sources(CUPTI_CB_STAGE_DRIVER);
		driver_told = 1;
	}
	int rc = services.state == CUPTI_CB_READY ? CUPTI_CB_OK : CUPTI_CB_EUNAVAIL;
	if (rc && services.state != CUPTI_CB_CATALOG)
		snprintf(why, len, "%s", services.why[0] ? services.why : "cupti_cb is not open");
	pthread_mutex_unlock(&lock);
	return rc;
}

/* The metric sources are left out: their names are the GPU chip's, which
 * only the driver knows (cuInit, which a library loaded before main must
 * not call: a program that forks before its first CUDA call could not use
 * CUDA in the children), and the Range Profiler collects a set's metrics
 * together between a start and a stop, which SDE's one counter at a time
 * does not express (cupti_cb-sde(7)). */
const struct cupti_cb_source *cupti_cb_sde_engine_source(unsigned id)
{
	if (id >= n_sources || !sources[id].ops)
		return NULL;
	const char *label = sources[id].ops->label;
	if (strcmp(label, "callback") && strcmp(label, "activity"))
		return NULL;
	return &sources[id];
}
