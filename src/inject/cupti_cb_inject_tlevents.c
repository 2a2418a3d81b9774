/*
 * cupti_cb_inject_tlevents.c: see cupti_cb_inject_tlevents.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_activity.h>

#include "cupti_cb_inject_tlevents.h"

static int room(struct cupti_cb_inj_tlbuf *b, size_t more)
{
	if (b->failed)
		return 0;
	if (b->len + more + 1 <= b->cap)
		return 1;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->failed = 1;
		return 0;
	}
	b->p = p;
	b->cap = cap;
	return 1;
}

void cupti_cb_inj_tlbuf_printf(struct cupti_cb_inj_tlbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !room(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void cupti_cb_inj_tlbuf_escaped(struct cupti_cb_inj_tlbuf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			cupti_cb_inj_tlbuf_printf(b, "\\%c", c);
		else if (c < 0x20)
			cupti_cb_inj_tlbuf_printf(b, "\\u%04x", c);
		else if (room(b, 1))
			b->p[b->len++] = (char)c;
	}
	if (b->p)
		b->p[b->len] = '\0';
}

/* ns as microseconds with three decimals, exactly (no double: a run's ns exceed 2^53 µs
 * never, but a negative time must print as one). */
static void micros(struct cupti_cb_inj_tlbuf *b, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)-(ns + 1) + 1 : (uint64_t)ns;
	cupti_cb_inj_tlbuf_printf(b, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
				  (unsigned long long)(a % 1000));
}

void cupti_cb_inj_tl_call(struct cupti_cb_inj_tlbuf *b, long pid, long tid, const char *name,
			  const struct cupti_cb_tap_call *c, int64_t ts, uint64_t dur)
{
	cupti_cb_inj_tlbuf_printf(b, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"", c->driver ? "cuda_driver" : "cuda_runtime");
	if (name)
		cupti_cb_inj_tlbuf_escaped(b, name);
	else
		cupti_cb_inj_tlbuf_printf(b, "%s %u", c->driver ? "driver" : "runtime", c->cbid);
	cupti_cb_inj_tlbuf_printf(b, "\",\"pid\":%ld,\"tid\":%ld,\"ts\":", pid, tid);
	micros(b, ts);
	cupti_cb_inj_tlbuf_printf(b, ",\"dur\":");
	micros(b, (int64_t)dur);
	cupti_cb_inj_tlbuf_printf(b, ",\"args\":{\"correlation\":%u,\"cbid\":%u%s}},\n", c->correlation, c->cbid,
				  c->flags & CUPTI_CB_TAP_FAILED ? ",\"failed\":true" : "");
	if ((c->flags & CUPTI_CB_TAP_ISSUES_WORK) && !(c->flags & CUPTI_CB_TAP_FAILED)) {
		cupti_cb_inj_tlbuf_printf(b, "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g %ld\",\"id\":%u,"
					  "\"pid\":%ld,\"tid\":%ld,\"ts\":", pid, c->correlation, pid, tid);
		micros(b, ts);
		cupti_cb_inj_tlbuf_printf(b, "},\n");
	}
}

const char *cupti_cb_inj_tl_copy_name(int copy_kind)
{
	switch (copy_kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "Memcpy HtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "Memcpy DtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "Memcpy HtoA";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "Memcpy AtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "Memcpy AtoA";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "Memcpy AtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "Memcpy DtoA";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "Memcpy DtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "Memcpy HtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "Memcpy PtoP";
	default: return "Memcpy";
	}
}

void cupti_cb_inj_tl_work(struct cupti_cb_inj_tlbuf *b, long pid, const struct cupti_cb_tap_work *w,
			  const char *name, int64_t ts)
{
	static const char *const cat[] = { "kernel", "gpu_memcpy", "gpu_memset" };
	const char *shown = name ? name
			    : w->kind == CUPTI_CB_TAP_KERNEL ? (w->name ? w->name : "kernel")
			    : w->kind == CUPTI_CB_TAP_MEMCPY ? cupti_cb_inj_tl_copy_name(w->copy_kind)
							      : "Memset";
	uint64_t dur = w->end > w->start ? w->end - w->start : 0;
	cupti_cb_inj_tlbuf_printf(b, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"", cat[w->kind]);
	cupti_cb_inj_tlbuf_escaped(b, shown);
	cupti_cb_inj_tlbuf_printf(b, "\",\"pid\":%u,\"tid\":%u,\"ts\":", w->device, w->stream);
	micros(b, ts);
	cupti_cb_inj_tlbuf_printf(b, ",\"dur\":");
	micros(b, (int64_t)dur);
	cupti_cb_inj_tlbuf_printf(b, ",\"args\":{\"correlation\":%u,\"device\":%u,\"context\":%u,\"stream\":%u",
				  w->correlation, w->device, w->context, w->stream);
	if (w->kind == CUPTI_CB_TAP_KERNEL)
		cupti_cb_inj_tlbuf_printf(b, ",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d]", w->grid[0], w->grid[1],
					  w->grid[2], w->block[0], w->block[1], w->block[2]);
	else
		cupti_cb_inj_tlbuf_printf(b, ",\"bytes\":%llu", (unsigned long long)w->bytes);
	cupti_cb_inj_tlbuf_printf(b, "}},\n{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g %ld\",\"id\":%u,"
				  "\"pid\":%u,\"tid\":%u,\"ts\":", pid, w->correlation, w->device, w->stream);
	micros(b, ts);
	cupti_cb_inj_tlbuf_printf(b, ",\"bp\":\"e\"},\n");
}

void cupti_cb_inj_tl_process_name(struct cupti_cb_inj_tlbuf *b, long pid, const char *name)
{
	cupti_cb_inj_tlbuf_printf(b, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%ld,\"args\":{\"name\":\"", pid);
	cupti_cb_inj_tlbuf_escaped(b, name);
	cupti_cb_inj_tlbuf_printf(b, "\"}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%ld,"
				  "\"args\":{\"sort_index\":%ld}},\n", pid, pid);
}

void cupti_cb_inj_tl_thread_name(struct cupti_cb_inj_tlbuf *b, long pid, long tid, const char *name)
{
	cupti_cb_inj_tlbuf_printf(b, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":\"",
				  pid, tid);
	cupti_cb_inj_tlbuf_escaped(b, name);
	cupti_cb_inj_tlbuf_printf(b, "\"}},\n");
}

/* Devices sort before the processes (whose pids are larger than any device number but for pid
 * 1 in a container): as torch.profiler's GPU rows, they come first. */
void cupti_cb_inj_tl_device_name(struct cupti_cb_inj_tlbuf *b, uint32_t device)
{
	cupti_cb_inj_tlbuf_printf(b, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":\"GPU %u\"}},\n"
				  "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"args\":{\"sort_index\":%u}},\n",
				  device, device, device, device);
}

void cupti_cb_inj_tl_stream_name(struct cupti_cb_inj_tlbuf *b, uint32_t device, uint32_t stream)
{
	cupti_cb_inj_tlbuf_printf(b, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
				  "\"args\":{\"name\":\"stream %u\"}},\n", device, stream, stream);
}

void cupti_cb_inj_tl_counter(struct cupti_cb_inj_tlbuf *b, long pid, const char *name, int64_t ts, double v)
{
	cupti_cb_inj_tlbuf_printf(b, "{\"ph\":\"C\",\"name\":\"%s\",\"pid\":%ld,\"ts\":", name, pid);
	micros(b, ts);
	cupti_cb_inj_tlbuf_printf(b, ",\"args\":{\"value\":%.6g}},\n", v);
}
