/* cupti_cb_suggest.c: see cupti_cb_suggest.h. Nothing here runs for a name
 * that resolves: the adapter asks only after every source refused it. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cupti_cb_suggest.h"

#define SHOWN 3			/* names offered at most, as git offers commands */
#define REMEMBERED 32		/* names already answered, for cupti_cb_suggest_first_time */

/* The base of a name: without "cupti_cb:::" and qualifiers. */
static void base_of(const char *name, char *base, size_t len)
{
	size_t n = strcspn(name, ":");
	if (n >= len)
		n = len - 1;
	memcpy(base, name, n);
	base[n] = '\0';
}

int cupti_cb_suggest_worth(const struct cupti_cb_source *sources, unsigned n, const char *name)
{
	char base[CUPTI_CB_NAME_MAX];
	base_of(cupti_cb_strip_prefix(name), base, sizeof base);
	for (unsigned i = 0; i < n; i++) {
		const struct cupti_cb_source_ops *o = sources[i].ops;
		if (o && (o->may_be_ours(base) || (o->may_be_near && o->may_be_near(base))))
			return 1;
	}
	return 0;
}

/* Whether some source accepts name as it is. */
static int accepted(const struct cupti_cb_source *sources, unsigned n, const char *name)
{
	uint32_t code;
	for (unsigned i = 0; i < n; i++)
		if (sources[i].ops && cupti_cb_event_may_be_ours(&sources[i], name) &&
		    cupti_cb_event_parse(&sources[i], name, &code) == CUPTI_CB_OK)
			return 1;
	return 0;
}

/* name without its qualifier field, when it has it: 1. */
static int without_field(const char *name, const char *field, char *out, size_t len)
{
	size_t f = strlen(field), o = 0;
	int found = 0;
	const char *p = strchr(name, ':');
	if (!p)
		return 0;
	o = (size_t)(p - name) < len ? (size_t)(p - name) : len - 1;
	memcpy(out, name, o);
	while (p && *p == ':') {
		const char *q = p + 1, *end = strchr(q, ':');
		size_t k = end ? (size_t)(end - q) : strlen(q);
		if (k == f && !strncmp(q, field, f))
			found = 1;
		else if (o + k + 1 < len) {
			out[o++] = ':';
			memcpy(out + o, q, k);
			o += k;
		}
		p = end;
	}
	out[o] = '\0';
	return found;
}

/* Whether the sources that fit the name first are s: those whose tag it
 * carries, or, when it carries none, those without one (a misspelt
 * "dram__bytes_reed.sum" is offered the Range Profiler's metric, not its
 * ":sampled" twin). */
static int preferred(const struct cupti_cb_source *sources, unsigned n, const struct cupti_cb_source *s,
		     const char *name)
{
	char scratch[CUPTI_CB_NAME_MAX];
	int tagged = 0;
	for (unsigned i = 0; i < n; i++)
		if (sources[i].ops && sources[i].ops->tag && without_field(name, sources[i].ops->tag, scratch, sizeof scratch))
			tagged = 1;
	if (!s->ops->tag)
		return !tagged;
	return without_field(name, s->ops->tag, scratch, sizeof scratch);
}

/* The name with a source's tag it lacks, or without one it should not
 * have: ":sampled" metrics are another source's names. */
static int tag_hint(const struct cupti_cb_source *sources, unsigned n, const char *name, char *buf, size_t len)
{
	char alt[2 * CUPTI_CB_NAME_MAX];
	for (unsigned i = 0; i < n; i++) {
		const char *tag = sources[i].ops ? sources[i].ops->tag : NULL;
		if (!tag)
			continue;
		if (without_field(name, tag, alt, sizeof alt)) {
			if (accepted(sources, n, alt)) {
				snprintf(buf, len, "no event '%s'; it exists as '%s', without :%s", name, alt, tag);
				return 1;
			}
			continue;
		}
		snprintf(alt, sizeof alt, "%s:%s", name, tag);
		if (accepted(sources, n, alt)) {
			snprintf(buf, len, "no event '%s'; it exists as '%s'", name, alt);
			return 1;
		}
	}
	return 0;
}

/* A base some source accepts, with qualifiers none does: the ones it takes. */
static int qualifier_hint(const struct cupti_cb_source *sources, unsigned n, const char *name, char *buf, size_t len)
{
	char base[CUPTI_CB_NAME_MAX];
	uint32_t code;
	base_of(name, base, sizeof base);
	if (!strchr(name, ':'))
		return 0;
	for (unsigned i = 0; i < 2 * n; i++) {
		const struct cupti_cb_source *s = &sources[i % n];
		if (s->ops && (i < n) != preferred(sources, n, s, name))
			continue;
		char tagged[CUPTI_CB_NAME_MAX + 32];
		snprintf(tagged, sizeof tagged, "%s%s%s", base, s->ops && s->ops->tag ? ":" : "",
			 s->ops && s->ops->tag ? s->ops->tag : "");
		if (!s->ops || !cupti_cb_event_may_be_ours(s, tagged) || cupti_cb_event_parse(s, tagged, &code))
			continue;
		unsigned q = s->ops->qualifiers(s->self, code);
		snprintf(buf, len, "no event '%s': '%s' takes %s%s%s%s%s", name, tagged,
			 q & CUPTI_CB_Q_PROCESS ? ":process" : "",
			 q & CUPTI_CB_Q_PROCESS && q & (CUPTI_CB_Q_THREAD | CUPTI_CB_Q_DEVICE) ? ", " : "",
			 q & CUPTI_CB_Q_THREAD ? ":thread" : "",
			 q & CUPTI_CB_Q_THREAD && q & CUPTI_CB_Q_DEVICE ? ", " : "",
			 q & CUPTI_CB_Q_DEVICE ? ":device=N (a device the driver sees)" : "");
		if (!(q & (CUPTI_CB_Q_PROCESS | CUPTI_CB_Q_THREAD | CUPTI_CB_Q_DEVICE)))
			snprintf(buf, len, "no event '%s': '%s' takes no qualifier", name, tagged);
		return 1;
	}
	return 0;
}

struct nearest {
	unsigned best, found;
	char names[SHOWN][CUPTI_CB_NAME_MAX];
};

static void offer(struct nearest *nr, unsigned d, const char *cand)
{
	if (d > nr->best)
		return;
	if (d < nr->best)
		nr->best = d, nr->found = 0;
	for (unsigned i = 0; i < nr->found; i++)
		if (!strcmp(nr->names[i], cand))
			return;
	if (nr->found < SHOWN)
		snprintf(nr->names[nr->found++], sizeof nr->names[0], "%s", cand);
}

/* A listed name that resolves, spelt as the user would: the input's
 * qualifiers and a metric's rollup ("rest") kept where they fit, the
 * source's tag added. "" when none of them resolves. */
static void candidate(const struct cupti_cb_source *sources, unsigned n, const struct cupti_cb_source *s,
		      const char *listed, const char *rest, const char *quals, char *out, size_t len)
{
	const char *tag = s->ops->tag;
	char tries[3][2 * CUPTI_CB_NAME_MAX];
	snprintf(tries[0], sizeof tries[0], "%s%s%s%s%s%s", listed, rest, quals[0] ? ":" : "", quals,
		 tag && !strstr(quals, tag) ? ":" : "", tag && !strstr(quals, tag) ? tag : "");
	snprintf(tries[1], sizeof tries[1], "%s%s%s%s", listed, rest, tag ? ":" : "", tag ? tag : "");
	snprintf(tries[2], sizeof tries[2], "%s%s%s", listed, tag ? ":" : "", tag ? tag : "");
	out[0] = '\0';
	for (int t = 0; t < 3; t++)
		if (strlen(tries[t]) < len && accepted(sources, n, tries[t])) {
			snprintf(out, len, "%s", tries[t]);
			return;
		}
}

/* Each listed base name near the input's; a listed name without a '.'
 * (a metric) is compared with the input up to its first '.', and takes
 * the input's rollup. */
static void search(const struct cupti_cb_source *sources, unsigned n, const struct cupti_cb_source *s,
		   const char *name, struct nearest *nr)
{
	char base[CUPTI_CB_NAME_MAX], head[CUPTI_CB_NAME_MAX], listed[CUPTI_CB_NAME_MAX], cand[CUPTI_CB_NAME_MAX];
	const char *colon = strchr(name, ':');
	const char *quals = colon ? colon + 1 : "";
	base_of(name, base, sizeof base);
	size_t h = strcspn(base, ".");
	memcpy(head, base, h);
	head[h] = '\0';
	size_t lb = strlen(base);
	unsigned max = lb < 6 ? 1 : lb < 16 ? 2 : 3;
	uint32_t code;
	if (s->ops->first(s->self, &code))
		return;
	do {
		if (s->ops->base_name(s->self, code, listed, sizeof listed))
			continue;
		int metric = !strchr(listed, '.');
		unsigned d = cupti_cb_name_distance(metric ? head : base, listed, max < nr->best ? max : nr->best);
		if (d > max || d > nr->best)
			continue;
		candidate(sources, n, s, listed, metric ? base + h : "", quals, cand, sizeof cand);
		if (cand[0])
			offer(nr, d, cand);
	} while (s->ops->next(s->self, &code) == CUPTI_CB_OK);
}

static int nearest_names(const struct cupti_cb_source *sources, unsigned n, const char *name, char *buf, size_t len)
{
	char base[CUPTI_CB_NAME_MAX];
	struct nearest nr = { .best = 4, .found = 0 };
	base_of(name, base, sizeof base);
	for (int pass = 0; pass < 2 && !nr.found; pass++)
		for (unsigned i = 0; i < n; i++) {
			const struct cupti_cb_source_ops *o = sources[i].ops;
			if (o && (pass || preferred(sources, n, &sources[i], name)) &&
			    (o->may_be_ours(base) || (o->may_be_near && o->may_be_near(base))))
				search(sources, n, &sources[i], name, &nr);
		}
	if (!nr.found)
		return 0;
	int w = snprintf(buf, len, "no event '%s'; did you mean '%s'", name, nr.names[0]);
	for (unsigned i = 1; i < nr.found && w > 0 && (size_t)w < len; i++)
		w += snprintf(buf + w, len - (size_t)w, "%s'%s'", i + 1 == nr.found ? " or " : ", ", nr.names[i]);
	if (w > 0 && (size_t)w < len)
		snprintf(buf + w, len - (size_t)w, "?");
	return 1;
}

int cupti_cb_suggest_too_long(const char *name, char *buf, size_t len)
{
	name = cupti_cb_strip_prefix(name);
	size_t l = strlen(name);
	if (l <= CUPTI_CB_NAME_ROOM)
		return 0;
	snprintf(buf, len, "no event '%.40s...': a name of %zu characters after " CUPTI_CB_PREFIX
			   ", longer than the %d PAPI holds", name, l, (int)CUPTI_CB_NAME_ROOM);
	return 1;
}

/* A name that some source accepts with device 0 in place of its device
 * number: a device the driver does not have, which programs probe for
 * (cupti_cb_run counts the devices so), not a misspelling. 1 with the
 * sentence in buf. */
static int no_such_device(const struct cupti_cb_source *sources, unsigned n, const char *name, char *buf, size_t len)
{
	const char *d = strstr(name, ":device");
	if (!d)
		return 0;
	const char *num = d + 7 + (d[7] == '=');
	size_t digits = strspn(num, "0123456789");
	if (!digits || (num[digits] && num[digits] != ':'))
		return 0;
	char zero[2 * CUPTI_CB_NAME_MAX];
	int k = snprintf(zero, sizeof zero, "%.*s0%s", (int)(num - name), name, num + digits);
	if (k < 0 || (size_t)k >= sizeof zero || !accepted(sources, n, zero))
		return 0;
	snprintf(buf, len, "no event '%s': there is no CUDA device %.*s here", name, (int)digits, num);
	return 1;
}

int cupti_cb_suggest(const struct cupti_cb_source *sources, unsigned n, const char *name, char *buf, size_t len)
{
	name = cupti_cb_strip_prefix(name);
	if (cupti_cb_suggest_too_long(name, buf, len) || no_such_device(sources, n, name, buf, len))
		return 0;
	if (tag_hint(sources, n, name, buf, len) || qualifier_hint(sources, n, name, buf, len) ||
	    nearest_names(sources, n, name, buf, len))
		return 1;
	snprintf(buf, len, "no event '%s'", name);
	return 0;
}

/* FNV-1a: names are told apart by their hash; a collision only means a
 * suggestion not printed twice. */
static uint64_t hash_of(const char *s)
{
	uint64_t h = 14695981039346656037ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

int cupti_cb_suggest_first_time(const char *name)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static uint64_t seen[REMEMBERED];
	static unsigned next;
	uint64_t h = hash_of(cupti_cb_strip_prefix(name)) | 1;
	int first = 1;
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < REMEMBERED && first; i++)
		first = seen[i] != h;
	if (first)
		seen[next++ % REMEMBERED] = h;
	pthread_mutex_unlock(&lock);
	return first;
}
