/* cupti_cb_profiler_catalog.c: the hardware-metric catalogue of one chip. Built from
 * one Profiler Host object: the base metrics of the three types, merged and
 * sorted by name for binary search, and one suffix table per type. All of
 * it lives in one allocation; descriptions and units, which cost a Host API
 * call each, are fetched on first use into a chunked arena of their own. */
#include "cupti_cb_profiler_catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Strings never move once stored: the catalogue hands out pointers. */
struct cupti_cb_profiler_catalog_chunk {
	struct cupti_cb_profiler_catalog_chunk *next;
	size_t used, size;
	char data[];
};

#define PROPS_CHUNK (64 * 1024)

static const char *const default_suffix[CUPTI_CB_PROFILER_CATALOG_TYPES] = {
	".sum",					/* counter: the total count */
	".pct",					/* ratio: as a percentage */
	".avg.pct_of_peak_sustained_elapsed",	/* throughput: what Nsight Compute shows */
};

static const char *const type_name[CUPTI_CB_PROFILER_CATALOG_TYPES] = { "counter", "ratio", "throughput" };

static int cupti_refused(const struct cupti_cb_profiler_catalog *m, CUptiResult r, const char *call, const char *what,
			 char *why, size_t len)
{
	snprintf(why, len, "%s failed for %s of chip %s: %s", call, what, m->chip,
		 cupti_cb_profiler_api_error(m->p, r));
	return CUPTI_CB_PROFILER_CATALOG_ECUPTI;
}

/* ---- building ------------------------------------------------------------ */

static int listed(const CUpti_Profiler_Host_GetSupportedChips_Params *sp, const char *chip)
{
	for (size_t i = 0; i < sp->numChips; i++)
		if (!strcmp(sp->ppChipNames[i], chip))
			return 1;
	return 0;
}

/* An unknown chip: the sentence lists the chips this libcupti knows. A
 * known one can still be refused (GV11B: CUPTI_ERROR_NOT_SUPPORTED, no
 * Range Profiler there); listing it back would only confuse. */
static int chip_refused(const struct cupti_cb_profiler_catalog *m, CUptiResult r, char *why, size_t len)
{
	CUpti_Profiler_Host_GetSupportedChips_Params sp = {
		.structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE
	};
	int known = m->p->cuptiProfilerHostGetSupportedChips(&sp) == CUPTI_SUCCESS && sp.numChips;
	int n = snprintf(why, len, "chip '%s' refused by cuptiProfilerHostInitialize for %s (%s)", m->chip,
			 m->profiler == CUPTI_PROFILER_TYPE_PM_SAMPLING ? "PM sampling" : "the Range Profiler",
			 cupti_cb_profiler_api_error(m->p, r));
	if (!known || listed(&sp, m->chip))
		return CUPTI_CB_PROFILER_CATALOG_ECUPTI;
	for (size_t i = 0; i < sp.numChips && n >= 0 && (size_t)n < len; i++)
		n += snprintf(why + n, len - n, "%s%s", i ? ", " : "; the chips this libcupti supports: ",
			      sp.ppChipNames[i]);
	return CUPTI_CB_PROFILER_CATALOG_ECUPTI;
}

int cupti_cb_profiler_catalog_chip_spelling(const struct cupti_cb_profiler_api *p, const char *chip, char *out,
					    size_t len)
{
	CUpti_Profiler_Host_GetSupportedChips_Params sp = {
		.structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE
	};
	snprintf(out, len, "%s", chip);
	if (p->cuptiProfilerHostGetSupportedChips(&sp) != CUPTI_SUCCESS || listed(&sp, chip))
		return 0;
	for (size_t i = 0; i < sp.numChips; i++)
		if (!strcasecmp(sp.ppChipNames[i], chip)) {
			snprintf(out, len, "%s", sp.ppChipNames[i]);
			return 1;
		}
	return 0;
}

static int host_open(struct cupti_cb_profiler_catalog *m, char *why, size_t len)
{
	CUpti_Profiler_Host_Initialize_Params ip = { .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
	ip.profilerType = m->profiler;
	ip.pChipName = m->chip;
	CUptiResult r = m->p->cuptiProfilerHostInitialize(&ip);
	if (r != CUPTI_SUCCESS)
		return chip_refused(m, r, why, len);
	m->host = ip.pHostObject;
	return CUPTI_CB_PROFILER_CATALOG_OK;
}

/* CUPTI's base lists, valid while the host object lives, and the size of
 * each suffix list: the list itself is asked for again when copied, since
 * nothing says it outlives the next call. */
struct lists {
	const char **base[CUPTI_CB_PROFILER_CATALOG_TYPES];
	size_t n_base[CUPTI_CB_PROFILER_CATALOG_TYPES];
	size_t n_sub[CUPTI_CB_PROFILER_CATALOG_TYPES];
	size_t sub_bytes[CUPTI_CB_PROFILER_CATALOG_TYPES];
};

static int get_subs(const struct cupti_cb_profiler_catalog *m, int t, const char *metric, const char ***subs, size_t *n,
		    char *why, size_t len)
{
	CUpti_Profiler_Host_GetSubMetrics_Params sp = {
		.structSize = CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE
	};
	sp.pHostObject = m->host;
	sp.metricType = (CUpti_MetricType)t;
	sp.pMetricName = metric;
	CUptiResult r = m->p->cuptiProfilerHostGetSubMetrics(&sp);
	if (r != CUPTI_SUCCESS)
		return cupti_refused(m, r, "cuptiProfilerHostGetSubMetrics", metric, why, len);
	*subs = sp.ppSubMetrics;
	*n = sp.numOfSubmetrics;
	return CUPTI_CB_PROFILER_CATALOG_OK;
}

static int get_lists(const struct cupti_cb_profiler_catalog *m, struct lists *l, char *why, size_t len)
{
	for (int t = 0; t < CUPTI_CB_PROFILER_CATALOG_TYPES; t++) {
		CUpti_Profiler_Host_GetBaseMetrics_Params bp = {
			.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE
		};
		bp.pHostObject = m->host;
		bp.metricType = (CUpti_MetricType)t;
		CUptiResult r = m->p->cuptiProfilerHostGetBaseMetrics(&bp);
		if (r != CUPTI_SUCCESS)
			return cupti_refused(m, r, "cuptiProfilerHostGetBaseMetrics", type_name[t], why, len);
		l->base[t] = bp.ppMetricNames;
		l->n_base[t] = bp.numMetrics;
		l->n_sub[t] = l->sub_bytes[t] = 0;
		if (!bp.numMetrics)
			continue;
		const char **subs;
		int e = get_subs(m, t, bp.ppMetricNames[0], &subs, &l->n_sub[t], why, len);
		if (e)
			return e;
		for (size_t i = 0; i < l->n_sub[t]; i++)
			l->sub_bytes[t] += strlen(subs[i]) + 1;
		if (l->n_sub[t] > CUPTI_CB_PROFILER_CATALOG_MAX_SUFFIXES) {
			snprintf(why, len, "%s metrics of chip %s take %zu suffixes, more than the %d a variant holds",
				 type_name[t], m->chip, l->n_sub[t], CUPTI_CB_PROFILER_CATALOG_MAX_SUFFIXES);
			return CUPTI_CB_PROFILER_CATALOG_EINVAL;
		}
	}
	return CUPTI_CB_PROFILER_CATALOG_OK;
}

static size_t arena_size(const struct lists *l, size_t *n_metrics, size_t *n_subs)
{
	size_t bytes = 0;
	*n_metrics = *n_subs = 0;
	for (int t = 0; t < CUPTI_CB_PROFILER_CATALOG_TYPES; t++) {
		*n_metrics += l->n_base[t];
		*n_subs += l->n_sub[t];
		for (size_t i = 0; i < l->n_base[t]; i++)
			bytes += strlen(l->base[t][i]) + 1;
		bytes += l->sub_bytes[t];
	}
	return *n_metrics * sizeof(struct cupti_cb_metric) + *n_subs * sizeof(char *) + bytes;
}

static char *store(char **at, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = memcpy(*at, s, n);
	*at += n;
	return d;
}

/* Copies CUPTI's lists into the arena: metrics[], then the suffix tables,
 * then the characters. */
static int fill(struct cupti_cb_profiler_catalog *m, const struct lists *l, size_t n_metrics, size_t n_subs, char *why,
		size_t len)
{
	m->metrics = (struct cupti_cb_metric *)m->strings;
	const char **table = (const char **)(m->metrics + n_metrics);
	char *at = (char *)(table + n_subs);
	unsigned k = 0;
	for (int t = 0; t < CUPTI_CB_PROFILER_CATALOG_TYPES; t++) {
		m->n_of_type[t] = (unsigned)l->n_base[t];
		for (size_t i = 0; i < l->n_base[t]; i++, k++) {
			memset(&m->metrics[k], 0, sizeof m->metrics[k]);
			m->metrics[k].name = store(&at, l->base[t][i]);
			m->metrics[k].type = (uint8_t)t;
		}
		m->n_metrics = k;
		m->suffixes[t] = table;
		if (!l->n_sub[t])
			continue;
		const char **subs;
		size_t n;
		int e = get_subs(m, t, l->base[t][0], &subs, &n, why, len);
		if (e)
			return e;
		if (n != l->n_sub[t]) {
			snprintf(why, len, "cuptiProfilerHostGetSubMetrics gave %zu then %zu suffixes for '%s'", l->n_sub[t], n,
				 l->base[t][0]);
			return CUPTI_CB_PROFILER_CATALOG_ECUPTI;
		}
		m->n_suffixes[t] = (unsigned)n;
		for (size_t i = 0; i < n; i++)
			*table++ = store(&at, subs[i]);
	}
	return CUPTI_CB_PROFILER_CATALOG_OK;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct cupti_cb_metric *)a)->name, ((const struct cupti_cb_metric *)b)->name);
}

/* Parsing relies on these: a name made of [A-Za-z0-9_.] (which is also
 * what keeps it whole in PAPI_EVENTS and TAU_METRICS), no empty part
 * between dots. Suffixes start with their dot. */
static int clean_name(const char *s, int suffix)
{
	if (suffix ? *s++ != '.' : *s == '.')
		return 0;
	if (!*s)
		return 0;
	for (const char *c = s; *c; c++) {
		int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			 *c == '_' || (*c == '.' && c[1] && c[1] != '.');
		if (!ok)
			return 0;
	}
	return 1;
}

static int check_names(const struct cupti_cb_profiler_catalog *m, char *why, size_t len)
{
	size_t longest[CUPTI_CB_PROFILER_CATALOG_TYPES] = { 0 };
	for (int t = 0; t < CUPTI_CB_PROFILER_CATALOG_TYPES; t++)
		for (unsigned s = 0; s < m->n_suffixes[t]; s++)
			if (strlen(m->suffixes[t][s]) > longest[t])
				longest[t] = strlen(m->suffixes[t][s]);
	for (unsigned i = 0; i < m->n_metrics; i++) {
		const struct cupti_cb_metric *x = &m->metrics[i];
		const char *bad = !clean_name(x->name, 0) ? "has a character outside [A-Za-z0-9_.]"
				  : strlen(x->name) + longest[x->type] >= CUPTI_CB_PROFILER_CATALOG_NAME_MAX ? "is too long"
				  : i && !strcmp(m->metrics[i - 1].name, x->name) ? "is listed twice"
										  : NULL;
		if (bad) {
			snprintf(why, len, "metric '%s' of chip %s %s", x->name, m->chip, bad);
			return CUPTI_CB_PROFILER_CATALOG_EINVAL;
		}
	}
	for (int t = 0; t < CUPTI_CB_PROFILER_CATALOG_TYPES; t++)
		for (unsigned s = 0; s < m->n_suffixes[t]; s++)
			if (!clean_name(m->suffixes[t][s], 1)) {
				snprintf(why, len, "suffix '%s' of chip %s is not a dot and [A-Za-z0-9_.]",
					 m->suffixes[t][s], m->chip);
				return CUPTI_CB_PROFILER_CATALOG_EINVAL;
			}
	return CUPTI_CB_PROFILER_CATALOG_OK;
}

static int same_subs(const struct cupti_cb_profiler_catalog *m, int t, const char **subs, size_t n)
{
	if (n != m->n_suffixes[t])
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(subs[i], m->suffixes[t][i]))
			return 0;
	return 1;
}

/* The suffix table of a type comes from its first metric. test_profiler_catalog checks
 * every metric of every supported chip; here three per type, cheaply, so
 * that a future libcupti breaking the assumption is refused, not
 * misparsed. */
static int check_uniform(const struct cupti_cb_profiler_catalog *m, const struct lists *l, char *why, size_t len)
{
	for (int t = 0; t < CUPTI_CB_PROFILER_CATALOG_TYPES; t++) {
		size_t n = l->n_base[t];
		const size_t probe[2] = { n / 2, n ? n - 1 : 0 };
		for (int k = 0; k < 2 && n > 1; k++) {
			const char *name = l->base[t][probe[k]], **subs;
			size_t ns;
			int e = get_subs(m, t, name, &subs, &ns, why, len);
			if (e)
				return e;
			if (!same_subs(m, t, subs, ns)) {
				snprintf(why, len,
					 "%s metric '%s' of chip %s takes other suffixes than '%s': the catalogue "
					 "assumes one suffix list per type",
					 type_name[t], name, m->chip, l->base[t][0]);
				return CUPTI_CB_PROFILER_CATALOG_ECUPTI;
			}
		}
	}
	return CUPTI_CB_PROFILER_CATALOG_OK;
}

static int set_defaults(struct cupti_cb_profiler_catalog *m, char *why, size_t len)
{
	for (int t = 0; t < CUPTI_CB_PROFILER_CATALOG_TYPES; t++) {
		m->default_variant[t] = 0;
		for (unsigned s = 0; s < m->n_suffixes[t]; s++)
			if (!strcmp(m->suffixes[t][s], default_suffix[t]))
				m->default_variant[t] = 1 + s;
		if (!m->default_variant[t] && m->n_of_type[t]) {
			snprintf(why, len, "%s metrics of chip %s do not take '%s', the default", type_name[t],
				 m->chip, default_suffix[t]);
			return CUPTI_CB_PROFILER_CATALOG_ECUPTI;
		}
	}
	return CUPTI_CB_PROFILER_CATALOG_OK;
}

static int copy_lists(struct cupti_cb_profiler_catalog *m, char *why, size_t len)
{
	struct lists l;
	int e = get_lists(m, &l, why, len);
	if (e)
		return e;
	size_t n_metrics, n_subs, bytes = arena_size(&l, &n_metrics, &n_subs);
	m->strings = malloc(bytes ? bytes : 1);
	if (!m->strings) {
		snprintf(why, len, "no memory for the %zu metrics of chip %s", n_metrics, m->chip);
		return CUPTI_CB_PROFILER_CATALOG_ENOMEM;
	}
	if ((e = fill(m, &l, n_metrics, n_subs, why, len)))
		return e;
	/* CUPTI lists each type in name order; the merged list is not. */
	qsort(m->metrics, m->n_metrics, sizeof m->metrics[0], by_name);
	if ((e = check_names(m, why, len)) || (e = check_uniform(m, &l, why, len)))
		return e;
	return set_defaults(m, why, len);
}

int cupti_cb_profiler_catalog_build(struct cupti_cb_profiler_catalog *m, const struct cupti_cb_profiler_api *p, const char *chip,
			char *why, size_t len)
{
	return cupti_cb_profiler_catalog_build_for(m, p, chip, CUPTI_PROFILER_TYPE_RANGE_PROFILER, why, len);
}

int cupti_cb_profiler_catalog_build_for(struct cupti_cb_profiler_catalog *m, const struct cupti_cb_profiler_api *p,
				      const char *chip, CUpti_ProfilerType profiler, char *why, size_t len)
{
	memset(m, 0, sizeof *m);
	m->p = p;
	m->profiler = profiler;
	if (!chip || !chip[0] || strlen(chip) >= sizeof m->chip) {
		snprintf(why, len, "no chip name, or one too long, for the metric catalogue");
		return CUPTI_CB_PROFILER_CATALOG_EINVAL;
	}
	strcpy(m->chip, chip);
	int e = host_open(m, why, len);
	if (!e)
		e = copy_lists(m, why, len);
	if (e)
		cupti_cb_profiler_catalog_free(m);
	return e;
}

void cupti_cb_profiler_catalog_free(struct cupti_cb_profiler_catalog *m)
{
	if (m->host && m->p) {
		CUpti_Profiler_Host_Deinitialize_Params dp = {
			.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE
		};
		dp.pHostObject = m->host;
		m->p->cuptiProfilerHostDeinitialize(&dp);
	}
	for (struct cupti_cb_profiler_catalog_chunk *c = m->props, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(m->strings);
	const struct cupti_cb_profiler_api *p = m->p;
	memset(m, 0, sizeof *m);
	m->p = p;
}

/* ---- parsing and naming -------------------------------------------------- */

/* The metric whose name is exactly s[0..n), or -1. */
static long find_base(const struct cupti_cb_profiler_catalog *m, const char *s, size_t n)
{
	size_t lo = 0, hi = m->n_metrics;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *name = m->metrics[mid].name;
		int c = strncmp(name, s, n);
		if (!c && name[n])
			c = 1;	/* name is longer: it sorts after s[0..n) */
		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int find_suffix(const struct cupti_cb_profiler_catalog *m, int type, const char *s)
{
	for (unsigned i = 0; i < m->n_suffixes[type]; i++)
		if (!strcmp(m->suffixes[type][i], s))
			return (int)i;
	return -1;
}

static int well_formed(const char *name, size_t *len)
{
	if (!name || !name[0])
		return 0;
	size_t n = strnlen(name, CUPTI_CB_PROFILER_CATALOG_NAME_MAX);
	if (n >= CUPTI_CB_PROFILER_CATALOG_NAME_MAX || !clean_name(name, 0))
		return 0;
	*len = n;
	return 1;
}

int cupti_cb_profiler_catalog_parse(const struct cupti_cb_profiler_catalog *m, const char *name, uint32_t *metric,
			uint32_t *variant)
{
	size_t n;
	if (!well_formed(name, &n))
		return CUPTI_CB_PROFILER_CATALOG_EINVAL;
	/* The longest base name that ends at a dot or at the end: base names
	 * may hold dots themselves. */
	size_t end = n;
	long id;
	while ((id = find_base(m, name, end)) < 0) {
		/* The next candidate ends before the previous dot. */
		do
			end--;
		while (end > 0 && name[end] != '.');
		if (end == 0)
			return CUPTI_CB_PROFILER_CATALOG_ENOMETRIC;
	}
	const struct cupti_cb_metric *x = &m->metrics[id];
	int s = name[end] ? find_suffix(m, x->type, name + end) : -1;
	if (name[end] && s < 0)
		return CUPTI_CB_PROFILER_CATALOG_ESUFFIX;
	*metric = (uint32_t)id;
	*variant = name[end] ? (uint32_t)s + 1 : 0;
	return CUPTI_CB_PROFILER_CATALOG_OK;
}

/* The suffix of a variant ("" for the listed spelling of variant 0), or
 * NULL where metric or variant is out of range (*err says which). */
static const char *suffix_of(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant, int full,
			     int *err)
{
	if (metric >= m->n_metrics) {
		*err = CUPTI_CB_PROFILER_CATALOG_ENOMETRIC;
		return NULL;
	}
	int t = m->metrics[metric].type;
	if (variant > m->n_suffixes[t]) {
		*err = CUPTI_CB_PROFILER_CATALOG_ESUFFIX;
		return NULL;
	}
	if (!variant)
		return full ? m->suffixes[t][m->default_variant[t] - 1] : "";
	return m->suffixes[t][variant - 1];
}

static int write_name(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant, int full, char *buf,
		      size_t len)
{
	int e = CUPTI_CB_PROFILER_CATALOG_OK;
	const char *suffix = suffix_of(m, metric, variant, full, &e);
	if (!suffix)
		return e;
	int n = snprintf(buf, len, "%s%s", m->metrics[metric].name, suffix);
	return n < 0 || (size_t)n >= len ? CUPTI_CB_PROFILER_CATALOG_EINVAL : CUPTI_CB_PROFILER_CATALOG_OK;
}

int cupti_cb_profiler_catalog_name(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant, char *buf,
		       size_t len)
{
	return write_name(m, metric, variant, 0, buf, len);
}

int cupti_cb_profiler_catalog_full_name(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant,
			    char *buf, size_t len)
{
	return write_name(m, metric, variant, 1, buf, len);
}

/* ---- properties ---------------------------------------------------------- */

static const char *props_store(struct cupti_cb_profiler_catalog *m, const char *s)
{
	size_t n = strlen(s) + 1;
	struct cupti_cb_profiler_catalog_chunk *c = m->props;
	if (!c || c->size - c->used < n) {
		size_t size = n > PROPS_CHUNK ? n : PROPS_CHUNK;
		c = malloc(sizeof *c + size);
		if (!c)
			return NULL;
		c->next = m->props;
		c->used = 0;
		c->size = size;
		m->props = c;
	}
	char *d = memcpy(c->data + c->used, s, n);
	c->used += n;
	return d;
}

static int fetch_props(struct cupti_cb_profiler_catalog *m, uint32_t metric)
{
	if (metric >= m->n_metrics)
		return CUPTI_CB_PROFILER_CATALOG_ENOMETRIC;
	struct cupti_cb_metric *x = &m->metrics[metric];
	if (x->has_props)
		return CUPTI_CB_PROFILER_CATALOG_OK;
	CUpti_Profiler_Host_GetMetricProperties_Params pp = {
		.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE
	};
	pp.pHostObject = m->host;
	pp.pMetricName = x->name;
	if (m->p->cuptiProfilerHostGetMetricProperties(&pp) != CUPTI_SUCCESS)
		return CUPTI_CB_PROFILER_CATALOG_ECUPTI;
	x->descr = props_store(m, pp.pDescription ? pp.pDescription : "");
	x->dim = x->descr ? props_store(m, pp.pDimUnit ? pp.pDimUnit : "") : NULL;
	if (!x->descr || !x->dim)
		return CUPTI_CB_PROFILER_CATALOG_ENOMEM;
	x->has_props = 1;
	return CUPTI_CB_PROFILER_CATALOG_OK;
}

int cupti_cb_profiler_catalog_descr(struct cupti_cb_profiler_catalog *m, uint32_t metric, char *buf, size_t len)
{
	int e = fetch_props(m, metric);
	if (e)
		return e;
	int n = snprintf(buf, len, "%s", m->metrics[metric].descr);
	return n < 0 || (size_t)n >= len ? CUPTI_CB_PROFILER_CATALOG_EINVAL : CUPTI_CB_PROFILER_CATALOG_OK;
}

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), k = strlen(end);
	return n >= k && !strcmp(s + n - k, end);
}

/* The unit of base unit dim under the last part of a suffix. */
static int suffix_unit(const char *dim, const char *last, char *buf, size_t len)
{
	const char *fmt = "%s";
	if (!strcmp(dim, "percent") || !strncmp(last, "pct", 3))
		dim = "%";
	else if (!strcmp(last, "per_second"))
		fmt = *dim ? "%s/s" : "1/s";
	else if (!strncmp(last, "per_cycle", 9) || !strcmp(last, "peak_sustained"))
		/* A count of cycles per cycle is a fraction. */
		fmt = ends_with(dim, "cycle") ? "" : *dim ? "%s/cycle" : "1/cycle";
	int n = snprintf(buf, len, fmt, dim);
	return n < 0 || (size_t)n >= len ? CUPTI_CB_PROFILER_CATALOG_EINVAL : CUPTI_CB_PROFILER_CATALOG_OK;
}

int cupti_cb_profiler_catalog_units(struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant, char *buf,
			size_t len)
{
	int e = CUPTI_CB_PROFILER_CATALOG_OK;
	const char *suffix = suffix_of(m, metric, variant, 1, &e);
	if (!suffix)
		return e;
	if ((e = fetch_props(m, metric)))
		return e;
	const char *last = strrchr(suffix, '.');
	return suffix_unit(m->metrics[metric].dim, last ? last + 1 : "", buf, len);
}

int cupti_cb_profiler_catalog_is_integer(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant)
{
	int e = CUPTI_CB_PROFILER_CATALOG_OK;
	const char *suffix = suffix_of(m, metric, variant, 1, &e);
	if (!suffix)
		return e;
	return m->metrics[metric].type == CUPTI_METRIC_TYPE_COUNTER && !strcmp(suffix, ".sum");
}

int cupti_cb_profiler_catalog_is_additive(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant)
{
	int e = CUPTI_CB_PROFILER_CATALOG_OK;
	const char *suffix = suffix_of(m, metric, variant, 1, &e);
	if (!suffix)
		return e;
	return m->metrics[metric].type == CUPTI_METRIC_TYPE_COUNTER &&
	       (!strcmp(suffix, ".sum") || !strcmp(suffix, ".avg") || !strcmp(suffix, ".min") ||
		!strcmp(suffix, ".max"));
}

int cupti_cb_profiler_catalog_extreme(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant)
{
	int e = CUPTI_CB_PROFILER_CATALOG_OK;
	const char *suffix = suffix_of(m, metric, variant, 1, &e);
	if (!suffix || m->metrics[metric].type != CUPTI_METRIC_TYPE_COUNTER)
		return 0;
	return !strcmp(suffix, ".max") ? 1 : !strcmp(suffix, ".min") ? -1 : 0;
}
