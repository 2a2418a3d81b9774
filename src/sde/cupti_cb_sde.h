/* cupti_cb_sde.h: libcupti_cb_sde.so, cupti_cb's events as PAPI Software
 * Defined Events, for a PAPI that was built without cupti_cb (Debian's
 * libpapi7.0, Spack's papi +sde): any PAPI whose sde component is compiled
 * in reads them as sde:::cupti_cb::NAME, NAME being the component's own
 * (kernel.launches, cudaMemcpy.calls:process, gpu.kernels).
 *
 * The library is a front end over the component's sources, as cupti_cb.c
 * is PAPI's: it compiles the same files (cupti_cb_files.mk but the PAPI
 * adapter) and talks to them through cupti_cb_source.h only.
 *
 *   cupti_cb_sde.c         registers the counters with PAPI's libsde, its
 *                          callback reads them (the top: no file calls it)
 *   cupti_cb_sde_reset.c   which read is a reset (libsde does not say)
 *   cupti_cb_sde_thread.c  a thread's event sets, one per source, that
 *                          grow by each counter the thread reads
 *   cupti_cb_sde_engine.c  the shared services and the sources, opened
 *                          the way the PAPI adapter opens them
 *
 * man/cupti_cb-sde.7 is the user's reference. */
#ifndef CUPTI_CB_SDE_H
#define CUPTI_CB_SDE_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb_source.h"

#define CUPTI_CB_SDE_LIBRARY "cupti_cb"	/* the SDE library name: sde:::cupti_cb::... */

/* ---- cupti_cb_sde_engine.c ---- */

/* The services' catalogue stage and every source over them. 0, or
 * CUPTI_CB_EUNAVAIL with the sentence in why (no libcupti here). */
int cupti_cb_sde_engine_open(char *why, size_t len);
/* The driver stage (cuInit, the subscriber probe), at a counter's first
 * read. 0, or an error with the sentence in why. */
int cupti_cb_sde_engine_ready(char *why, size_t len);
/* Source id, if the SDE front end serves it, else NULL: the callback and
 * GPU activity sources (cupti_cb-sde(7) says why not the metrics). */
const struct cupti_cb_source *cupti_cb_sde_engine_source(unsigned id);

/* ---- cupti_cb_sde_thread.c ---- */

/* A read of code on the calling thread: the change since the thread's
 * last reset of code (reset 0), or a reset (reset 1: the value now is the
 * new base, and *out is 0). A thread's first read of code adds it to the
 * thread's event set of its source, which starts counting it then (a
 * :process code counts the process from then on). 0, or an error with the
 * sentence in why. Async-signal-safe once code was read on the thread. */
int cupti_cb_sde_thread_read(uint32_t code, int reset, long long *out, char *why, size_t len);

/* ---- cupti_cb_sde_reset.c ---- */

/* Whether the calling thread is inside libsde's sde_ti_reset_counter,
 * which PAPI calls at every PAPI_start and PAPI_reset of a set holding an
 * SDE counter; and whether this library's wrapper of it is the one PAPI
 * finds (the library was loaded before libsde). */
int cupti_cb_sde_resetting(void);
int cupti_cb_sde_resets_reach_us(void);

#endif
