/* cupti_cb_inject_notes.c: the notes of the process file and the trace on stderr (see the header). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti_cb_inject_notes.h"

void cupti_cb_inj_note(struct cupti_cb_inj *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	cupti_cb_inj_trace(s, "note: %s", buf);
	if (s->n_notes < CUPTI_CB_INJ_MAX_NOTES) {
		char *n = strdup(buf);
		if (n)
			s->notes[s->n_notes++] = n;
	}
}

void cupti_cb_inj_trace(const struct cupti_cb_inj *s, const char *fmt, ...)
{
	if (!s->trace)
		return;
	char buf[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fprintf(stderr, CUPTI_CB_INJ_PREFIX "[%d] %s\n", (int)getpid(), buf);
}
