/* cupti_cb_core.c: names and qualifiers, the same for every source. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cupti_cb_core.h"

const char *cupti_cb_strip_prefix(const char *name)
{
	return strncmp(name, CUPTI_CB_PREFIX, sizeof CUPTI_CB_PREFIX - 1) ? name : name + sizeof CUPTI_CB_PREFIX - 1;
}

int cupti_cb_split_name(const char *name, char *buf, size_t len, char **quals)
{
	if (!name)
		return CUPTI_CB_EINVAL;
	name = cupti_cb_strip_prefix(name);
	/* Too long to be any event's name: no such event, as for a name of
	 * 116 to 255 characters, which no event has either (PAPI holds 127). */
	if (strlen(name) >= len)
		return CUPTI_CB_ENOEVNT;
	strcpy(buf, name);
	/* Empty fields ("a::b", "a:") and an empty base are malformed. */
	if (!buf[0] || buf[0] == ':' || strstr(buf, "::") || buf[strlen(buf) - 1] == ':')
		return CUPTI_CB_EINVAL;
	char *colon = strchr(buf, ':');
	*quals = colon ? colon + 1 : NULL;
	if (colon)
		*colon = '\0';
	return CUPTI_CB_OK;
}

/* "0".."63" only: no sign, no spaces, no leading zeros beyond "0". */
static int parse_ordinal(const char *s, int *out)
{
	if (!isdigit((unsigned char)s[0]) || (s[0] == '0' && s[1]) || strlen(s) > 3)
		return CUPTI_CB_EINVAL;
	int v = 0;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return CUPTI_CB_EINVAL;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return CUPTI_CB_OK;
}

int cupti_cb_qualifier_token(const char *q, struct cupti_cb_quals *out)
{
	if (!strcmp(q, "process") || !strcmp(q, "scope=process") || !strcmp(q, "thread") ||
	    !strcmp(q, "scope=thread")) {
		if (out->scope >= 0)
			return CUPTI_CB_EINVAL;	/* given twice */
		out->scope = strstr(q, "process") != NULL;
		return CUPTI_CB_OK;
	}
	const char *num = !strncmp(q, "device=", 7) ? q + 7 : !strncmp(q, "device", 6) ? q + 6 : NULL;
	if (!num)
		return CUPTI_CB_ENOEVNT;	/* a qualifier we do not have */
	int dev;
	if (parse_ordinal(num, &dev) || out->device >= 0)
		return CUPTI_CB_EINVAL;
	out->device = dev;
	return CUPTI_CB_OK;
}

int cupti_cb_qualifiers_parse(char *quals, struct cupti_cb_quals *q)
{
	q->device = -1;
	q->scope = -1;
	char *save = NULL;
	for (char *t = quals ? strtok_r(quals, ":", &save) : NULL; t; t = strtok_r(NULL, ":", &save)) {
		int rc = cupti_cb_qualifier_token(t, q);
		if (rc)
			return rc;
	}
	return CUPTI_CB_OK;
}

int cupti_cb_qualifiers_allowed(const struct cupti_cb_quals *q, unsigned mask, int n_devices)
{
	if (q->device >= 0 && (!(mask & CUPTI_CB_Q_DEVICE) || (n_devices >= 0 && q->device >= n_devices)))
		return 0;
	if (q->scope == 1 && !(mask & CUPTI_CB_Q_PROCESS))
		return 0;
	if (q->scope == 0 && !(mask & CUPTI_CB_Q_THREAD))
		return 0;
	return 1;
}

int cupti_cb_qualifiers_print(uint32_t code, char *buf, size_t len)
{
	size_t n = strlen(buf);
	int w = 0;
	if (CUPTI_CB_CODE_DEV(code) >= 0)
		w = snprintf(buf + n, len - n, ":device=%d", CUPTI_CB_CODE_DEV(code));
	if (w >= 0 && (size_t)w < len - n && CUPTI_CB_CODE_PROC(code)) {
		n += (size_t)w;
		w = snprintf(buf + n, len - n, ":process");
	}
	return (w < 0 || (size_t)w >= len - n) ? CUPTI_CB_EINVAL : CUPTI_CB_OK;
}

int cupti_cb_qualifier_first(uint32_t *code, unsigned mask, int n_devices)
{
	if (mask & CUPTI_CB_Q_LIST_PROCESS) {
		*code = CUPTI_CB_CODE_REQUALIFY(*code, -1, 1);
		return CUPTI_CB_OK;
	}
	if (!(mask & CUPTI_CB_Q_DEVICE) || n_devices < 1)
		return CUPTI_CB_ENOEVNT;
	*code = CUPTI_CB_CODE_REQUALIFY(*code, 0, 0);
	return CUPTI_CB_OK;
}

int cupti_cb_qualifier_next(uint32_t *code, unsigned mask, int n_devices)
{
	int dev = CUPTI_CB_CODE_DEV(*code) + 1;	/* process -> device 0 -> device 1 .. */
	if (!(mask & CUPTI_CB_Q_DEVICE) || dev >= n_devices)
		return CUPTI_CB_ENOEVNT;
	*code = CUPTI_CB_CODE_REQUALIFY(*code, dev, 0);
	return CUPTI_CB_OK;
}

/* Three rows of the table suffice for the swap of two neighbours. A row
 * whose least is over max ends the walk: the rest can only grow. */
unsigned cupti_cb_name_distance(const char *a, const char *b, unsigned max)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la >= CUPTI_CB_NAME_MAX || lb >= CUPTI_CB_NAME_MAX || (la > lb ? la - lb : lb - la) > max)
		return max + 1;
	unsigned rows[3][CUPTI_CB_NAME_MAX + 1];
	unsigned *two = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned least = cur[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned d = prev[j - 1] + cost;
			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && two[j - 2] + 1 < d)
				d = two[j - 2] + 1;
			cur[j] = d;
			if (d < least)
				least = d;
		}
		if (least > max)
			return max + 1;
		unsigned *t = two;
		two = prev, prev = cur, cur = t;
	}
	return prev[lb] > max ? max + 1 : prev[lb];
}
