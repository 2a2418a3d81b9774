/* cupti_cb_events.c: names with qualifiers, for any source. A source
 * knows its base names and which qualifiers each event takes; parsing,
 * printing and listing the qualifiers happen here, once. */
#include <stdio.h>
#include <string.h>

#include "cupti_cb_source.h"

int cupti_cb_event_may_be_ours(const struct cupti_cb_source *s, const char *name)
{
	if (!name || !s->ops)
		return 0;
	char base[CUPTI_CB_NAME_MAX];
	name = cupti_cb_strip_prefix(name);
	size_t n = strcspn(name, ":");
	if (n >= sizeof base)
		n = sizeof base - 1;	/* the form of a base too long still tells whose it would be */
	memcpy(base, name, n);
	base[n] = '\0';
	return s->ops->may_be_ours(base);
}

int cupti_cb_event_name(const struct cupti_cb_source *s, uint32_t code, char *buf, size_t len)
{
	if (!s->ops->valid(s->self, code))
		return CUPTI_CB_ENOEVNT;
	int rc = s->ops->base_name(s->self, CUPTI_CB_CODE_UNQUALIFIED(code), buf, len);
	if (!rc && s->ops->tag) {
		size_t n = strlen(buf);
		int w = snprintf(buf + n, len - n, ":%s", s->ops->tag);
		rc = (w < 0 || (size_t)w >= len - n) ? CUPTI_CB_EINVAL : CUPTI_CB_OK;
	}
	return rc ? rc : cupti_cb_qualifiers_print(code, buf, len);
}

/* Takes the source's tag out of the qualifiers (modified in place): 0 when
 * it was there exactly once, or when the source has none. */
static int take_tag(const struct cupti_cb_source *s, char *quals)
{
	const char *tag = s->ops->tag;
	if (!tag)
		return CUPTI_CB_OK;
	size_t n = strlen(tag);
	int found = 0;
	char *out = quals;
	for (char *f = quals; f && *f;) {
		char *end = strchr(f, ':');
		size_t flen = end ? (size_t)(end - f) : strlen(f);
		if (flen == n && !strncmp(f, tag, n)) {
			if (found++)
				return CUPTI_CB_EINVAL;	/* given twice */
		} else {
			if (out != quals)
				*out++ = ':';
			memmove(out, f, flen);
			out += flen;
		}
		f = end ? end + 1 : NULL;
	}
	if (quals)
		*out = '\0';
	return found ? CUPTI_CB_OK : CUPTI_CB_ENOEVNT;
}

/* PAPI holds a name in PAPI_MAX_STR_LEN bytes, "cupti_cb:::" included. */
static int fits(const struct cupti_cb_source *s, uint32_t code)
{
	char buf[2 * CUPTI_CB_NAME_MAX];
	return cupti_cb_event_name(s, code, buf, sizeof buf) == CUPTI_CB_OK && strlen(buf) <= CUPTI_CB_NAME_ROOM;
}

int cupti_cb_event_parse(const struct cupti_cb_source *s, const char *name, uint32_t *code)
{
	char buf[CUPTI_CB_NAME_MAX], *quals;
	struct cupti_cb_quals q;
	uint32_t base;
	if (!code)
		return CUPTI_CB_EINVAL;
	int rc = cupti_cb_split_name(name, buf, sizeof buf, &quals);
	if (rc)
		return rc;
	if ((rc = s->ops->lookup(s->self, buf, &base)))
		return rc;
	if ((rc = take_tag(s, quals)))
		return rc;
	if ((rc = cupti_cb_qualifiers_parse(quals && *quals ? quals : NULL, &q)))
		return rc;
	/* Device ordinals are checked by valid, once the driver counted them. */
	if (!cupti_cb_qualifiers_allowed(&q, s->ops->qualifiers(s->self, base), -1))
		return CUPTI_CB_ENOEVNT;
	uint32_t c = CUPTI_CB_CODE_REQUALIFY(base, q.device, q.scope == 1);
	if (!fits(s, c))
		return CUPTI_CB_ENOEVNT;
	*code = c;
	return CUPTI_CB_OK;
}

/* Listed qualifiers whose full name would not fit are skipped. */
static int next_fitting(const struct cupti_cb_source *s, uint32_t *code, int rc)
{
	unsigned mask = s->ops->qualifiers(s->self, CUPTI_CB_CODE_UNQUALIFIED(*code));
	int n = s->ops->devices(s->self);
	while (rc == CUPTI_CB_OK && !fits(s, *code))
		rc = cupti_cb_qualifier_next(code, mask, n);
	return rc;
}

int cupti_cb_event_first_qualifier(const struct cupti_cb_source *s, uint32_t *code)
{
	uint32_t c = CUPTI_CB_CODE_UNQUALIFIED(*code);
	if (!s->ops->valid(s->self, c))
		return CUPTI_CB_ENOEVNT;
	int rc = cupti_cb_qualifier_first(&c, s->ops->qualifiers(s->self, c), s->ops->devices(s->self));
	if ((rc = next_fitting(s, &c, rc)) == CUPTI_CB_OK)
		*code = c;
	return rc;
}

int cupti_cb_event_next_qualifier(const struct cupti_cb_source *s, uint32_t *code)
{
	uint32_t c = *code;
	int rc = cupti_cb_qualifier_next(&c, s->ops->qualifiers(s->self, CUPTI_CB_CODE_UNQUALIFIED(c)),
					 s->ops->devices(s->self));
	if ((rc = next_fitting(s, &c, rc)) == CUPTI_CB_OK)
		*code = c;
	return rc;
}
