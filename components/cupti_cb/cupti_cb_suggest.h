/* cupti_cb_suggest.h: what to tell a user whose name was refused. Cold
 * path only: asked after a lookup failed, never on a name that resolves,
 * never in a signal handler (it walks the catalogues). */
#ifndef CUPTI_CB_SUGGEST_H
#define CUPTI_CB_SUGGEST_H

#include <stddef.h>

#include "cupti_cb_source.h"


/* Whether name ("cupti_cb:::" optional) is close enough to the form of a
 * source's names that a suggestion is worth a look: a form the source
 * claims, or its words misspelt. Nothing is loaded to answer. */
int cupti_cb_suggest_worth(const struct cupti_cb_source *sources, unsigned n, const char *name);

/* One sentence for a name no source accepted, into buf (without a
 * newline): the name with the tag it lacks ("no event 'X'; it exists as
 * 'X:sampled'"), without the one it should not have, the qualifiers its
 * event takes, or the nearest names of the catalogues ("no event
 * 'kernel.lanches'; did you mean 'kernel.launches'?", at most three of
 * equal distance). Returns 1 with a sentence, 0 when there is nothing to
 * say beyond "no event", or the name is too long (buf then holds that:
 * cupti_cb_suggest_too_long). */
int cupti_cb_suggest(const struct cupti_cb_source *sources, unsigned n, const char *name, char *buf, size_t len);

/* A name too long for PAPI to hold ("cupti_cb:::" optional): 1 with the
 * sentence in buf, 0 otherwise. Nothing is loaded to answer. */
int cupti_cb_suggest_too_long(const char *name, char *buf, size_t len);

/* 1 the first time name ("cupti_cb:::" optional) is asked about in the
 * process (of the last 32 names), 0 after: a tool that looks a name up
 * several times gets one sentence. Thread-safe; not async-signal-safe. */
int cupti_cb_suggest_first_time(const char *name);

#endif
