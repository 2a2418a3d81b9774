/*
 * cupti_cb_inject_tlevents.h: the timeline's events in the Chrome trace event format (the JSON
 * that torch.profiler exports and Perfetto and chrome://tracing read), one event a line, each
 * followed by a comma: the runner writes the file's head before the program runs and its tail
 * after, so that the processes only append (cupti_cb_run(1), --timeline).
 *
 * The names follow torch.profiler's (Kineto's) where it has one: categories cuda_runtime,
 * cuda_driver, kernel, gpu_memcpy, gpu_memset; flows of category "ac2g" from a launch to its GPU
 * work, with the correlation id as the flow id; args "correlation", "device", "stream".  A flow's
 * name is "ac2g PID" (torch.profiler's is "ac2g"): readers tell flows apart by id, category and
 * name, and the processes of a run hand out the same correlation ids.  Times are in
 * microseconds with three decimals (ns), from the run's origin on CUPTI's clock.
 */
#ifndef CUPTI_CB_INJECT_TLEVENTS_H
#define CUPTI_CB_INJECT_TLEVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb.h"

struct cupti_cb_inj_tlbuf {
	char *p;
	size_t len, cap;
	int failed;		/* out of memory: what follows is lost */
};

void cupti_cb_inj_tlbuf_printf(struct cupti_cb_inj_tlbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s as a JSON string's contents (without the quotes). */
void cupti_cb_inj_tlbuf_escaped(struct cupti_cb_inj_tlbuf *b, const char *s);

/* A CUDA call of thread tid of process pid: a complete span, and the start of a flow when it
 * issued GPU work. ts: its start in ns from the origin (may be negative); dur in ns. */
void cupti_cb_inj_tl_call(struct cupti_cb_inj_tlbuf *b, long pid, long tid, const char *name,
			  const struct cupti_cb_tap_call *c, int64_t ts, uint64_t dur);
/* A kernel, copy or memset on its device and stream, and the end of its flow from process pid.
 * name: the kernel's name as it is to be shown (NULL: the record's). */
void cupti_cb_inj_tl_work(struct cupti_cb_inj_tlbuf *b, long pid, const struct cupti_cb_tap_work *w,
			  const char *name, int64_t ts);
/* Names: a process, a thread of it, a device (a "process" of the trace), a stream of it. */
void cupti_cb_inj_tl_process_name(struct cupti_cb_inj_tlbuf *b, long pid, const char *name);
void cupti_cb_inj_tl_thread_name(struct cupti_cb_inj_tlbuf *b, long pid, long tid, const char *name);
void cupti_cb_inj_tl_device_name(struct cupti_cb_inj_tlbuf *b, uint32_t device);
void cupti_cb_inj_tl_stream_name(struct cupti_cb_inj_tlbuf *b, uint32_t device, uint32_t stream);
/* A counter track's value at ts. */
void cupti_cb_inj_tl_counter(struct cupti_cb_inj_tlbuf *b, long pid, const char *name, int64_t ts, double v);
/* What a copy is named ("Memcpy HtoD"). */
const char *cupti_cb_inj_tl_copy_name(int copy_kind);

#endif /* CUPTI_CB_INJECT_TLEVENTS_H */
